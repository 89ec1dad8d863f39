import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CredentialVerdict } from '@availability/contracts';
import { ProblemException } from '@availability/service-core';
import { bearerToken } from './admin-token.js';
import { CredentialVerifier } from './credential-verifier.js';

type AuthenticatedRequest = FastifyRequest & { organisationId?: string; workerId?: string };

/** Longer tokens are refused without asking the directory (none it issues is that long). */
export const MAX_TOKEN_LENGTH = 512;

/** `Authorization: Bearer <token>` or `X-Api-Key: <token>`. */
export function presentedToken(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request.headers.authorization);
  if (bearer) return bearer;
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey.trim() : undefined;
}

async function verify(verifier: CredentialVerifier, request: FastifyRequest): Promise<CredentialVerdict> {
  const token = presentedToken(request);
  if (!token) throw ProblemException.unauthorized('Send your credential as "Authorization: Bearer <token>" or "X-Api-Key: <token>".');
  if (token.length > MAX_TOKEN_LENGTH) throw ProblemException.unauthorized('The credential is not valid.');
  return verifier.verifyFor(request, token);
}

/** Sender APIs: the caller is an organisation holding a live API key. */
@Injectable()
export class OrganisationAuthGuard implements CanActivate {
  constructor(private readonly verifier: CredentialVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const verdict = await verify(this.verifier, request);
    if (verdict.kind !== 'organisation') throw ProblemException.unauthorized('The API key is not valid or has been revoked.');
    request.organisationId = verdict.organisationId;
    return true;
  }
}

/** Worker app APIs: the caller is a worker holding a live worker token. */
@Injectable()
export class WorkerAuthGuard implements CanActivate {
  constructor(private readonly verifier: CredentialVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const verdict = await verify(this.verifier, request);
    if (verdict.kind !== 'worker') throw ProblemException.unauthorized('The worker token is not valid or has been revoked.');
    request.workerId = verdict.workerId;
    return true;
  }
}

export const CurrentOrganisation = createParamDecorator(
  (_: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<AuthenticatedRequest>().organisationId as string,
);

export const CurrentWorker = createParamDecorator(
  (_: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<AuthenticatedRequest>().workerId as string,
);
