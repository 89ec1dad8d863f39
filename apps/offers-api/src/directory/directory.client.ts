import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  CREDENTIAL_REVOKED_SUBJECT,
  type CredentialRevokedMessage,
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOfferAudienceReply,
  type ResolveOfferAudienceRequest,
  type VerifyCredentialRequest,
} from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { ProblemException, TtlCache } from '@availability/service-core';
import { OffersApiConfig } from '../config/offers-api.config.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A negative verdict is remembered briefly, so a client retrying a bad key cannot hammer the directory. */
const NEGATIVE_TTL_MS = 5_000;
/** Workers per audience request: keeps each reply well under NATS's 1 MB message limit, even with long names. */
const AUDIENCE_CHUNK = 1_000;

/**
 * What offers-api knows of contact-directory's data: credentials and workers, asked over NATS
 * request/reply and cached. Revocations are broadcast, so a revoked key stops working at once here.
 */
@Injectable()
export class DirectoryClient implements OnApplicationBootstrap {
  private readonly logger = new Logger('DirectoryClient');
  private readonly credentials = new TtlCache<string, CredentialVerdict>(100_000);
  /** `${organisationId}:${workerId}` → worker name. */
  private readonly workers = new TtlCache<string, string>(500_000);
  /** `${organisationId}:${userId}` → known. */
  private readonly users = new TtlCache<string, true>(100_000);
  constructor(
    private readonly rpc: RequestReply,
    private readonly config: OffersApiConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.rpc.subscribe<CredentialRevokedMessage>(CREDENTIAL_REVOKED_SUBJECT, ({ tokenHash }) => this.credentials.delete(tokenHash));
  }

  async verifyCredential(token: string): Promise<CredentialVerdict> {
    const tokenHash = hashToken(token);
    const cached = this.credentials.get(tokenHash);
    if (cached) return cached;
    const verdict = await this.ask<VerifyCredentialRequest, CredentialVerdict>(DirectoryPattern.VerifyCredential, { tokenHash });
    this.credentials.set(tokenHash, verdict, verdict.kind === 'none' ? NEGATIVE_TTL_MS : this.config.CREDENTIAL_CACHE_TTL_MS);
    return verdict;
  }

  /** Names of the offer's workers, and whether the creating user belongs to the organisation. */
  async resolveAudience(organisationId: string, userId: string, workerIds: string[]): Promise<ResolveOfferAudienceReply> {
    const names = new Map<string, string>();
    const missing: string[] = [];
    for (const workerId of workerIds) {
      const name = this.workers.get(`${organisationId}:${workerId}`);
      if (name === undefined) missing.push(workerId);
      else names.set(workerId, name);
    }
    let userKnown = this.users.get(`${organisationId}:${userId}`) === true;
    const unknownWorkerIds: string[] = [];
    if (missing.length > 0 || !userKnown) {
      const chunks = missing.length > 0 ? chunk(missing, AUDIENCE_CHUNK) : [[]];
      const replies = await Promise.all(
        chunks.map((workerIds) =>
          this.ask<ResolveOfferAudienceRequest, ResolveOfferAudienceReply>(DirectoryPattern.ResolveOfferAudience, {
            organisationId,
            userId,
            workerIds,
          }),
        ),
      );
      const ttl = this.config.DIRECTORY_CACHE_TTL_MS;
      for (const reply of replies) {
        for (const worker of reply.workers) {
          names.set(worker.workerId, worker.name);
          this.workers.set(`${organisationId}:${worker.workerId}`, worker.name, ttl);
        }
        unknownWorkerIds.push(...reply.unknownWorkerIds);
      }
      userKnown = replies[0].userKnown;
      if (userKnown) this.users.set(`${organisationId}:${userId}`, true, ttl);
    }
    const workers = workerIds.filter((id) => names.has(id)).map((workerId) => ({ workerId, name: names.get(workerId) as string }));
    return { userKnown, workers, unknownWorkerIds };
  }

  private async ask<TRequest, TReply>(pattern: string, request: TRequest): Promise<TReply> {
    try {
      return await this.rpc.request<TRequest, TReply>(pattern, request, this.config.DIRECTORY_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn(`directory request ${pattern} failed: ${(error as Error).message}`);
      throw new ProblemException(503, 'directory-unavailable', 'The directory could not be reached; retry shortly.', undefined, {
        'Retry-After': '1',
      });
    }
  }
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
