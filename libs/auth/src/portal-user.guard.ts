import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { MAX_TOKEN_LENGTH, presentedToken } from './auth.guards.js';
import { CredentialVerifier } from './credential-verifier.js';

/** A signed-in portal user: who, of which organisation, and whether they administer it. */
export interface PortalPrincipal {
  userId: string;
  organisationId: string;
  role: 'admin' | 'member';
}

type PortalRequest = FastifyRequest & { portalUser?: PortalPrincipal };

/**
 * Portal APIs, in whichever service serves them: the caller is a signed-in portal user holding a live
 * `put_…` token. Verified through CredentialVerifier (contact-directory's VerifyCredential responder,
 * cached, dropped at once on a revocation broadcast), as every credential of the platform is. The
 * organisation comes from the credential, never from the request.
 */
@Injectable()
export class PortalUserGuard implements CanActivate {
  constructor(private readonly verifier: CredentialVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PortalRequest>();
    const token = presentedToken(request);
    if (!token) throw ProblemException.unauthorized('Send your portal token as "Authorization: Bearer <token>".');
    if (token.length > MAX_TOKEN_LENGTH) throw ProblemException.unauthorized('The portal token is not valid.');
    const verdict = await this.verifier.verifyFor(request, token);
    if (verdict.kind !== 'user') throw ProblemException.unauthorized('The portal token is not valid or has been revoked.');
    request.portalUser = { userId: verdict.userId, organisationId: verdict.organisationId, role: verdict.role };
    return true;
  }
}

export const CurrentPortalUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): PortalPrincipal => context.switchToHttp().getRequest<PortalRequest>().portalUser as PortalPrincipal,
);

/** A change only the organisation's admins may make: a 403 problem naming it for anyone else. */
export function requireOrganisationAdmin(user: PortalPrincipal, change: string): void {
  if (user.role !== 'admin') {
    throw new ProblemException(403, 'forbidden', `Only an admin of the organisation can change ${change}.`);
  }
}
