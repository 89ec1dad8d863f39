import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { offerBody, OffersClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, freePort, queryDatabase, ServiceProcess, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * Nothing accepted is ever lost: offers-api is killed with SIGKILL between commit and publish and in
 * the middle of a burst; after a restart every stored offer has exactly one offers.created event.
 */
let platform: TestPlatform;
let acme: SeededOrganisation;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory']);
  acme = await seedOrganisation(platform.admin, { name: 'Crash Test Staffing', workers: 10 });
});

afterAll(async () => {
  await platform?.stop();
});

async function startOffersApi(env: Record<string, string> = {}): Promise<ServiceProcess> {
  return ServiceProcess.start({ app: 'offers-api', port: await freePort(), env: { ...platform.env, ...env } });
}

async function storedOfferIds(): Promise<string[]> {
  return (await queryDatabase<{ id: string }>(platform.database.url, 'SELECT id FROM offers.offer')).map((r) => r.id);
}

/** offerId → number of offers.created events in the stream. */
async function createdEventCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const message of await platform.events.messages('offers.created')) {
    const id = message.data.offerId as string;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function expectEveryStoredOfferPublishedOnce(accepted: string[]): Promise<void> {
  const stored = await storedOfferIds();
  for (const id of accepted) expect(stored).toContain(id);
  const counts = await eventually(async () => {
    const found = await createdEventCounts();
    return stored.every((id) => found.has(id)) && found;
  }, 20_000, 'every stored offer to be published');
  expect([...counts.keys()].sort()).toEqual([...stored].sort());
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}

describe('offers-api crash safety', () => {
  it('events committed but not yet published when the process dies are published once after restart', async () => {
    // The relay is off, so every accepted offer sits committed and unpublished when we kill the process.
    const first = await startOffersApi({ OUTBOX_RELAY_ENABLED: 'false' });
    const sender = new OffersClient(first.url, acme.apiKey);
    const accepted: string[] = [];
    for (let i = 0; i < 25; i++) {
      const result = await sender.createOffer(offerBody(acme.user.id, acme.workers.slice(0, 3).map((w) => w.id)));
      expect(result.status).toBe(201);
      accepted.push(result.text);
    }
    expect(await createdEventCounts()).toEqual(new Map());
    await first.kill();

    const second = await startOffersApi();
    try {
      await expectEveryStoredOfferPublishedOnce(accepted);
    } finally {
      await second.stop();
    }
  });

  it('a SIGKILL in the middle of a burst of creates loses no accepted offer and duplicates no event', async () => {
    const service = await startOffersApi();
    const sender = new OffersClient(service.url, acme.apiKey);
    const accepted: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 16 }, async () => {
      while (!stop) {
        try {
          const result = await sender.createOffer(offerBody(acme.user.id, acme.workers.map((w) => w.id)));
          if (result.status === 201) accepted.push(result.text);
        } catch {
          // connection reset by the kill: not accepted
        }
      }
    });
    await eventually(() => accepted.length >= 150, 30_000, 'the burst to get going');
    await service.kill();
    stop = true;
    await Promise.all(senders);

    await service.start();
    try {
      await expectEveryStoredOfferPublishedOnce(accepted);
    } finally {
      await service.stop();
    }
  });

  it('rows published again after a crash before they were marked are de-duplicated by JetStream', async () => {
    const service = await startOffersApi();
    try {
      const sender = new OffersClient(service.url, acme.apiKey);
      const id = (await sender.createOffer(offerBody(acme.user.id, [acme.workers[0].id]))).text;
      await eventually(async () => (await createdEventCounts()).get(id) === 1);
      // As if the relay had published but died before marking the rows sent.
      await queryDatabase(platform.database.url, 'UPDATE offers.outbox SET published_at = NULL');
      await eventually(async () => {
        const rows = await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(*)::int AS n FROM offers.outbox WHERE published_at IS NULL');
        return rows[0].n === 0;
      }, 10_000, 'the relay to republish');
      await expectEveryStoredOfferPublishedOnce([id]);
    } finally {
      await service.stop();
    }
  });
});
