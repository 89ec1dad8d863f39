import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CredentialVerdict } from '@availability/contracts';
import { adminTokenMatches, type RateLimitPrincipals } from '@availability/service-core';
import { MAX_TOKEN_LENGTH, presentedToken } from './auth.guards.js';
import { CREDENTIAL_VERIFIER_OPTIONS, CredentialVerifier, type CredentialVerifierOptions } from './credential-verifier.js';

/**
 * Whom the rate limit charges a request to: the holder of the credential it presents, found the way
 * the guards find it (presentedToken: the Bearer token, else X-Api-Key; then CredentialVerifier, whose
 * answer the request's guard reuses), so no header, nor anything sent beside the credential, changes
 * whom a request counts against. An API key counts as itself, a worker or portal user as the person
 * (all their tokens share one budget), an operator token as the operator. A token nobody holds, or
 * one the directory cannot confirm now, is no principal: the request counts against its address.
 */
@Injectable()
export class CredentialPrincipals implements RateLimitPrincipals {
  constructor(
    private readonly verifier: CredentialVerifier,
    @Inject(CREDENTIAL_VERIFIER_OPTIONS) private readonly options: CredentialVerifierOptions,
  ) {}

  async principalOf(request: FastifyRequest): Promise<string | undefined> {
    const token = presentedToken(request);
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    // Matched here, never sent to the directory; named by a hash, as two services' operators are two principals.
    const operator = (this.options.operatorTokens ?? []).find((expected) => expected !== '' && adminTokenMatches(token, expected));
    if (operator !== undefined) return `operator:${createHash('sha256').update(operator, 'utf8').digest('base64url').slice(0, 22)}`;
    let verdict: CredentialVerdict;
    try {
      verdict = await this.verifier.verifyFor(request, token);
    } catch {
      return undefined;
    }
    return principalOfVerdict(verdict);
  }
}

export function principalOfVerdict(verdict: CredentialVerdict): string | undefined {
  switch (verdict.kind) {
    case 'organisation':
      return `api-key:${verdict.apiKeyId}`;
    case 'worker':
      return `worker:${verdict.workerId}`;
    case 'user':
      return `user:${verdict.userId}`;
    default:
      return undefined;
  }
}
