import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type HttpResult, offerBody, OffersClient, type SeededOrganisation } from '@availability/platform-client';
import { DatabaseProxy, eventually, queryDatabase, seedAgencyWithWebhooks, startTestPlatform, TestIntegrator, type TestPlatform } from '@availability/testing';

/**
 * PostgreSQL going away under the running platform, as it does in a restart, a failover or a network
 * fault: every service reaches it through a proxy that can refuse connections, cut them, hold every
 * byte (a partition), or lose the answer to one statement after it committed. A request meanwhile is
 * answered 503 with Retry-After within the configured timeouts, never 500 and never left waiting;
 * when the database is back, the same processes serve again, and every change accepted before or after
 * reaches the integrator once.
 */
const SECRET = 'database-outage-secret-0123456789';
const CONNECT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 2_000;

let proxy: DatabaseProxy;
let platform: TestPlatform;
let integrator: TestIntegrator;
let agency: SeededOrganisation;
let sender: OffersClient;
const worker = (index: number) => new OffersClient(platform.url('offers-api'), agency.workers[index].token);

/** The verified webhooks of answers to `offerId` the integrator received. */
function answersAbout(offerId: string): Array<{ offerId: string; workerId: string; response: string }> {
  return integrator
    .callsTo('/offer/response')
    .filter((call) => call.verified)
    .map((call) => JSON.parse(call.body) as { offerId: string; workerId: string; response: string })
    .filter((answer) => answer.offerId === offerId);
}

beforeAll(async () => {
  proxy = await DatabaseProxy.start('postgres://postgres@127.0.0.1:5432/postgres');
  integrator = await TestIntegrator.start({ secret: SECRET });
  platform = await startTestPlatform(
    ['contact-directory', 'offers-api', 'webhook-dispatcher'],
    { WEBHOOK_ALLOW_LOOPBACK: 'true', DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) },
    { serviceDatabaseUrl: (url) => proxy.urlFor(url) },
  );
  agency = await seedAgencyWithWebhooks(platform, { name: 'Outage Staffing', workers: 4, integratorUrl: integrator.url, secret: SECRET });
  sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  integrator?.close();
  await proxy?.stop();
});

async function newOffer(): Promise<string> {
  const created = await sender.createOffer(offerBody(agency.user.id, agency.workers.map((w) => w.id)));
  expect(created.status).toBe(201);
  return created.text;
}

/**
 * Every call answered 503 with Retry-After within `withinMs`: `database-unavailable`, or
 * `directory-unavailable` where the credential check failed first (contact-directory lost its
 * database too).
 */
async function expectUnavailable(calls: Array<() => Promise<HttpResult>>, withinMs: number): Promise<void> {
  const started = performance.now();
  const results = await Promise.all(calls.map((call) => call()));
  expect(performance.now() - started).toBeLessThan(withinMs);
  for (const result of results) {
    expect({ status: result.status, type: (result.json as { type?: string })?.type, retryAfter: result.headers.get('retry-after') }).toEqual({
      status: 503,
      type: expect.stringMatching(/\/problems\/(database|directory)-unavailable$/),
      retryAfter: '1',
    });
  }
  // Credentials checked within CREDENTIAL_CACHE_TTL_MS are not asked again: those calls meet the database itself.
  expect(results.some((result) => (result.json as { type?: string }).type?.endsWith('/database-unavailable'))).toBe(true);
}

async function offerCount(): Promise<number> {
  const [row] = await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(*)::int AS n FROM offers.offer');
  return row.n;
}

/**
 * Until offers-api and the dispatcher serve again: once an offer is accepted, an answer is accepted at
 * its first try (no connection that lived through the outage is given out again) and reaches the
 * integrator once.
 */
async function expectServingAgain(): Promise<void> {
  const offerId = await eventually(async () => {
    const created = await sender.createOffer(offerBody(agency.user.id, agency.workers.map((w) => w.id)));
    return created.status === 201 && created.text;
  }, 20_000, 'an offer accepted again');
  expect((await worker(0).answer(offerId, 'applied')).status).toBe(200);
  await eventually(() => answersAbout(offerId).length === 1, 30_000, 'the answer’s webhook');
  await sleep(1_000);
  expect(answersAbout(offerId)).toHaveLength(1);
}

describe('PostgreSQL going away under the running platform', () => {
  it('while it restarts: 503 with Retry-After within the timeouts, nothing stored; then the same processes serve again', async () => {
    const offerId = await newOffer();
    const before = await offerCount();
    await proxy.goDown();
    try {
      await expectUnavailable(
        [
          () => sender.createOffer(offerBody(agency.user.id, [agency.workers[0].id])),
          () => sender.getOffer(offerId),
          () => worker(1).answer(offerId, 'applied'),
          () => sender.withdraw(offerId),
        ],
        // Refused connections fail at once; what waits, waits no longer than the configured timeouts:
        // for a connection, then for the statement's answer.
        CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS,
      );
      const health = await fetch(`${platform.url('offers-api')}/health`);
      expect([health.status, health.headers.get('retry-after'), (await health.json()) as unknown]).toEqual([
        503,
        '1',
        expect.objectContaining({ type: 'https://availability.example/problems/not-ready', detail: 'Not ready: database does not answer.' }),
      ]);
    } finally {
      await proxy.comeBack();
    }
    expect(await offerCount()).toBe(before);
    expect((await sender.getOffer(offerId)).json).toMatchObject({ widthdrawn: false });
    await expectServingAgain();
  });

  it('cut off without a word (a partition): 503 within the timeouts, not left waiting; then serving again', async () => {
    const offerId = await newOffer();
    proxy.partition();
    try {
      // The pool's open connections wait for the statement's answer, new ones for the server's greeting.
      await expectUnavailable(
        [() => sender.getOffer(offerId), () => worker(2).answer(offerId, 'rejected'), () => sender.createOffer(offerBody(agency.user.id, [agency.workers[0].id]))],
        CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS,
      );
    } finally {
      proxy.heal();
    }
    await expectServingAgain();
  });

  it('an answer whose commit was acknowledged into the void: 503, the same answer again 200, one webhook', async () => {
    const offerId = await newOffer();
    const dropped = proxy.dropAnswerTo('offers.answer');
    const first = await worker(3).answer(offerId, 'applied');
    await dropped;
    expect(first.status).toBe(503);
    const again = await worker(3).answer(offerId, 'applied');
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ response: 'applied' });
    // The event was committed with the answer: the outbox's poll publishes it, since its writer never learnt of the commit.
    await eventually(() => answersAbout(offerId).length === 1, 30_000, 'the answer’s webhook');
    await sleep(2_000);
    expect(answersAbout(offerId)).toEqual([expect.objectContaining({ workerId: agency.workers[3].id, response: 'applied' })]);
  });
});
