import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CredentialVerifier, presentedToken } from '@availability/auth';
import { ProblemException } from '@availability/service-core';

export interface PortalPrincipal {
  userId: string;
  organisationId: string;
  role: 'admin' | 'member';
}

type PortalRequest = FastifyRequest & { portalUser?: PortalPrincipal };

const MAX_TOKEN_LENGTH = 512;

/**
 * Portal APIs: the caller is a signed-in portal user holding a live `put_…` token.
 *
 * Verification goes through libs/auth's CredentialVerifier, i.e. over NATS to this service's own
 * VerifyCredential responder, rather than straight to the repository. That keeps one code path for
 * every credential in the platform (same hashing, same verdict cache, same revocation broadcast
 * dropping cached verdicts), and costs one NATS round trip per token per cache TTL.
 */
@Injectable()
export class PortalUserGuard implements CanActivate {
  constructor(private readonly verifier: CredentialVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PortalRequest>();
    const token = presentedToken(request);
    if (!token) throw ProblemException.unauthorized('Send your portal token as "Authorization: Bearer <token>".');
    if (token.length > MAX_TOKEN_LENGTH) throw ProblemException.unauthorized('The portal token is not valid.');
    const verdict = await this.verifier.verify(token);
    if (verdict.kind !== 'user') throw ProblemException.unauthorized('The portal token is not valid or has been revoked.');
    request.portalUser = { userId: verdict.userId, organisationId: verdict.organisationId, role: verdict.role };
    return true;
  }
}

export const CurrentPortalUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): PortalPrincipal => context.switchToHttp().getRequest<PortalRequest>().portalUser as PortalPrincipal,
);

/** Changes to the company profile are for the organisation's admins only. */
export function assertOrganisationAdmin(user: PortalPrincipal, change = 'the company profile'): void {
  if (user.role !== 'admin') {
    throw new ProblemException(403, 'forbidden', `Only an admin of the organisation can change ${change}.`);
  }
}
