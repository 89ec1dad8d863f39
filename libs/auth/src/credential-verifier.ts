import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  CREDENTIAL_REVOKED_SUBJECT,
  type CredentialRevokedMessage,
  type CredentialVerdict,
  DirectoryPattern,
  type VerifyCredentialRequest,
} from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { ProblemException, TtlCache } from '@availability/service-core';

export interface CredentialVerifierOptions {
  /** How long a verified credential is trusted before the directory is asked again. */
  cacheTtlMs: number;
  /** How long to wait for the directory's answer. */
  timeoutMs: number;
  /**
   * The service's own operator tokens (its admin API's), which the directory does not issue: the rate
   * limit counts them as the operator, and never sends them (or their hash) to the directory.
   */
  operatorTokens?: string[];
}

export const CREDENTIAL_VERIFIER_OPTIONS = Symbol('CREDENTIAL_VERIFIER_OPTIONS');

/** SHA-256 hex of a presented token: all that is stored, cached or sent over NATS. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A negative verdict is remembered briefly, so a client retrying a bad key cannot hammer the directory. */
const NEGATIVE_TTL_MS = 5_000;

/**
 * Asks contact-directory whose credential a token is, and caches the verdict. Revocations are
 * broadcast, so a revoked credential stops working here at once, not after the cache expires.
 */
@Injectable()
export class CredentialVerifier implements OnApplicationBootstrap {
  private readonly verdicts = new TtlCache<string, CredentialVerdict>(100_000);
  /** Each request's verdict, asked once: the rate limit asks before the guards do, and they get the same answer. */
  private readonly requestVerdicts = new WeakMap<object, { token: string; verdict: Promise<CredentialVerdict> }>();

  constructor(
    private readonly rpc: RequestReply,
    @Inject(CREDENTIAL_VERIFIER_OPTIONS) private readonly options: CredentialVerifierOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.rpc.subscribe<CredentialRevokedMessage>(CREDENTIAL_REVOKED_SUBJECT, ({ tokenHash }) => this.verdicts.delete(tokenHash));
  }

  /**
   * verify(token) for the token `request` presents, once per request: whoever asks again about the
   * same request (the rate limit first, then its guard) gets the first answer, a failure included, so
   * a directory that does not answer costs a request one timeout, not one per asker.
   */
  verifyFor(request: object, token: string): Promise<CredentialVerdict> {
    const asked = this.requestVerdicts.get(request);
    if (asked?.token === token) return asked.verdict;
    const verdict = this.verify(token);
    this.requestVerdicts.set(request, { token, verdict });
    return verdict;
  }

  async verify(token: string): Promise<CredentialVerdict> {
    const tokenHash = hashToken(token);
    const cached = this.verdicts.get(tokenHash);
    if (cached) return cached;
    let verdict: CredentialVerdict;
    try {
      verdict = await this.rpc.request<VerifyCredentialRequest, CredentialVerdict>(
        DirectoryPattern.VerifyCredential,
        { tokenHash },
        this.options.timeoutMs,
      );
    } catch {
      throw directoryUnavailable();
    }
    this.verdicts.set(tokenHash, verdict, verdict.kind === 'none' ? NEGATIVE_TTL_MS : this.options.cacheTtlMs);
    return verdict;
  }
}

export function directoryUnavailable(): ProblemException {
  return new ProblemException(503, 'directory-unavailable', 'The directory could not be reached; retry shortly.', undefined, {
    'Retry-After': '1',
  });
}
