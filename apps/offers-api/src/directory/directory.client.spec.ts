import { describe, expect, it } from '@jest/globals';
import type { ResolveOfferAudienceReply, ResolveOfferAudienceRequest } from '@availability/contracts';
import type { RequestReply } from '@availability/messaging';
import type { OffersApiConfig } from '../config/offers-api.config.js';
import { DirectoryClient } from './directory.client.js';

/** contact-directory as offers-api asks it: each organisation knows its own workers. */
function directoryOf(workers: Record<string, Record<string, string>>) {
  const asked: ResolveOfferAudienceRequest[] = [];
  const rpc = {
    request: async (_pattern: string, request: ResolveOfferAudienceRequest): Promise<ResolveOfferAudienceReply> => {
      asked.push(request);
      const known = workers[request.organisationId] ?? {};
      return {
        userKnown: true,
        workers: request.workerIds.filter((id) => id in known).map((workerId) => ({ workerId, name: known[workerId] })),
        unknownWorkerIds: request.workerIds.filter((id) => !(id in known)),
      };
    },
  } as unknown as RequestReply;
  const config = { DIRECTORY_CACHE_TTL_MS: 60_000, DIRECTORY_TIMEOUT_MS: 1_000 } as OffersApiConfig;
  return { client: new DirectoryClient(rpc, config), asked };
}

describe('DirectoryClient', () => {
  it('answers a repeat from its cache', async () => {
    const { client, asked } = directoryOf({ acme: { w1: 'Ada', w2: 'Bo' } });
    await client.resolveAudience('acme', 'u1', ['w1', 'w2']);
    const again = await client.resolveAudience('acme', 'u1', ['w2', 'w1']);
    expect(again.workers).toEqual([{ workerId: 'w2', name: 'Bo' }, { workerId: 'w1', name: 'Ada' }]);
    expect(asked).toHaveLength(1);
  });

  it('never answers one organisation with a worker cached for another', async () => {
    const { client, asked } = directoryOf({ acme: { w1: 'Ada' }, globex: {} });
    await client.resolveAudience('acme', 'u1', ['w1']);
    const rival = await client.resolveAudience('globex', 'u2', ['w1']);
    expect(rival.workers).toEqual([]);
    expect(rival.unknownWorkerIds).toEqual(['w1']);
    expect(asked.map((a) => a.organisationId)).toEqual(['acme', 'globex']);
    // The owner's entry is still there.
    expect((await client.resolveAudience('acme', 'u1', ['w1'])).workers).toEqual([{ workerId: 'w1', name: 'Ada' }]);
    expect(asked).toHaveLength(2);
  });
});
