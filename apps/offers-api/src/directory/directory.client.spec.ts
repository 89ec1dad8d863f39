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

const W1 = '0e9b1c2d-3f4a-4b5c-8d6e-7f8091a2b3c4';
const W2 = '1f0c2d3e-4a5b-4c6d-9e7f-8091a2b3c4d5';

describe('DirectoryClient', () => {
  it('answers a repeat from its cache', async () => {
    const { client, asked } = directoryOf({ acme: { [W1]: 'Ada', [W2]: 'Bo' } });
    await client.resolveAudience('acme', 'u1', [W1, W2]);
    const again = await client.resolveAudience('acme', 'u1', [W2, W1]);
    expect(again.workers).toEqual([{ workerId: W2, name: 'Bo' }, { workerId: W1, name: 'Ada' }]);
    expect(asked).toHaveLength(1);
  });

  it('never answers one organisation with a worker cached for another', async () => {
    const { client, asked } = directoryOf({ acme: { [W1]: 'Ada' }, globex: {} });
    await client.resolveAudience('acme', 'u1', [W1]);
    const rival = await client.resolveAudience('globex', 'u2', [W1]);
    expect(rival.workers).toEqual([]);
    expect(rival.unknownWorkerIds).toEqual([W1]);
    expect(asked.map((a) => a.organisationId)).toEqual(['acme', 'globex']);
    // The owner's entry is still there.
    expect((await client.resolveAudience('acme', 'u1', [W1])).workers).toEqual([{ workerId: W1, name: 'Ada' }]);
    expect(asked).toHaveLength(2);
  });

  it('does not ask about ids that cannot be worker ids (contact-directory makes every one a UUID), and lists the unknown in the order given', async () => {
    const { client, asked } = directoryOf({ acme: { [W1]: 'Ada' } });
    const junk = 'w'.repeat(64);
    const audience = await client.resolveAudience('acme', 'u1', [junk, W1, W2, 'w2']);
    expect(asked.map((a) => a.workerIds)).toEqual([[W1, W2]]);
    expect(audience.workers).toEqual([{ workerId: W1, name: 'Ada' }]);
    expect(audience.unknownWorkerIds).toEqual([junk, W2, 'w2']);
  });
});
