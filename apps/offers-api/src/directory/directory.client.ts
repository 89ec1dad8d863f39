import { Injectable } from '@nestjs/common';
import { DirectoryPattern, isUuid, type ResolveOfferAudienceReply, type ResolveOfferAudienceRequest } from '@availability/contracts';
import { directoryUnavailable } from '@availability/auth';
import { RequestReply } from '@availability/messaging';
import { TtlCache } from '@availability/service-core';
import { OffersApiConfig } from '../config/offers-api.config.js';

/** Workers per audience request: keeps each reply well under NATS's 1 MB message limit, even with long names. */
const AUDIENCE_CHUNK = 1_000;

/**
 * What offers-api knows of contact-directory's workers and users: asked over NATS request/reply and
 * cached, so a busy sender's offers go out without a directory round trip each time.
 */
@Injectable()
export class DirectoryClient {
  /**
   * Worker id → its organisation and name. Keyed by the id alone (directory ids are UUIDs, unique
   * across organisations), so a 10,000-worker offer builds no key string per worker; an entry of
   * another organisation counts as a miss, which the directory then answers as unknown.
   */
  private readonly workers = new TtlCache<string, { organisationId: string; name: string }>(500_000);
  /** `${organisationId}:${userId}` → known. */
  private readonly users = new TtlCache<string, true>(100_000);

  constructor(
    private readonly rpc: RequestReply,
    private readonly config: OffersApiConfig,
  ) {}

  /** Names of the offer's workers, and whether the creating user belongs to the organisation. */
  async resolveAudience(organisationId: string, userId: string, workerIds: string[]): Promise<ResolveOfferAudienceReply> {
    const names = new Map<string, string>();
    const missing: string[] = [];
    for (const workerId of workerIds) {
      // contact-directory makes every worker id, each a UUID: anything else is unknown without asking.
      if (!isUuid(workerId)) continue;
      const known = this.workers.get(workerId);
      if (known === undefined || known.organisationId !== organisationId) missing.push(workerId);
      else names.set(workerId, known.name);
    }
    let userKnown = this.users.get(`${organisationId}:${userId}`) === true;
    if (missing.length > 0 || !userKnown) {
      const chunks = missing.length > 0 ? chunk(missing, AUDIENCE_CHUNK) : [[]];
      const replies = await Promise.all(chunks.map((ids) => this.ask({ organisationId, userId, workerIds: ids })));
      const ttl = this.config.DIRECTORY_CACHE_TTL_MS;
      for (const reply of replies) {
        for (const worker of reply.workers) {
          names.set(worker.workerId, worker.name);
          this.workers.set(worker.workerId, { organisationId, name: worker.name }, ttl);
        }
      }
      userKnown = replies[0].userKnown;
      if (userKnown) this.users.set(`${organisationId}:${userId}`, true, ttl);
    }
    const workers = workerIds.filter((id) => names.has(id)).map((workerId) => ({ workerId, name: names.get(workerId) as string }));
    return { userKnown, workers, unknownWorkerIds: workerIds.filter((id) => !names.has(id)) };
  }

  private async ask(request: ResolveOfferAudienceRequest): Promise<ResolveOfferAudienceReply> {
    try {
      return await this.rpc.request<ResolveOfferAudienceRequest, ResolveOfferAudienceReply>(
        DirectoryPattern.ResolveOfferAudience,
        request,
        this.config.DIRECTORY_TIMEOUT_MS,
      );
    } catch {
      throw directoryUnavailable();
    }
  }
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
