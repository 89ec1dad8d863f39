import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { offerBody, OffersClient, type SeededOrganisation } from '@availability/platform-client';
import {
  eventually,
  queryDatabase,
  type IntegratorAnswer,
  type ReceivedCall,
  seedAgencyWithWebhooks,
  startTestPlatform,
  startTestRedisSentinels,
  TestIntegrator,
  type TestPlatform,
  type TestRedisSentinels,
} from '@availability/testing';

/**
 * The platform's Redis behind Sentinel (a primary, a replica, three Sentinels) and its primary killed
 * with SIGKILL in the middle of a steady stream of worker answers. The integrator refuses the first
 * call of every webhook (503), so each delivery needs its retry, a delayed BullMQ job: the first
 * attempt is made straight from the event stream and costs no Redis, the retry cannot be made without
 * it. Every answer must still reach the integrator with a 200, under the one webhook-id of its
 * delivery, with the replica promoted and the dispatcher's jobs running on it.
 *
 * Replication is asynchronous, so a retry the primary took just before it died can be missing on the
 * replica. The test makes sure some are: the replica is cut off before the kill, while the primary
 * takes the retries of ten more refusals, and the primary dies only once it holds a retry written
 * after the cut. Refusals say `Retry-After`, so such a retry is still waiting when the primary dies
 * (a jittered back-off could have run it already). The delivery log in PostgreSQL still knows those
 * deliveries, and the dispatcher's recovery sweep queues their attempts again.
 */
const SECRET = 'redis-failover-secret-0123456789';
const OFFERS = 15;
const WORKERS = 10;
/** Worker answers a second, OFFERS × WORKERS of them; the primary dies after half. */
const ANSWERS_PER_SECOND = 10;

interface Call {
  webhookId: string;
  offerId: string;
  workerId: string;
  status: number;
  verified: boolean;
  /** Whether it came after the Sentinels had named the promoted replica. */
  afterFailover: boolean;
}

/** The calls to /offer/response, each with what it was answered. */
const responseCalls: Call[] = [];
let failedOver = false;
const refusals = () => responseCalls.filter((call) => call.status === 503).length;

/** Seconds a refusal asks the dispatcher to wait: longer than the cut lasts. */
const RETRY_AFTER_SECONDS = 5;

/** The integrator answers 503 (with Retry-After) to the first call of each webhook-id, 200 after. */
function refuseFirst({ path, verified, webhookId, body }: ReceivedCall): IntegratorAnswer {
  if (path === '/test') return 200;
  if (path !== '/offer/response') return verified ? 200 : 401;
  const { offerId, workerId } = JSON.parse(body) as { offerId: string; workerId: string };
  const status = responseCalls.some((call) => call.webhookId === webhookId) ? 200 : 503;
  responseCalls.push({ webhookId, offerId, workerId, status, verified, afterFailover: failedOver });
  return status === 503 ? { status, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } : status;
}

/** The BullMQ jobs (hashes with `data`) a Redis server holds under the platform's queue prefix. */
async function jobKeys(address: string, prefix: string): Promise<string[]> {
  const [host, port] = address.split(':');
  const client = new Redis({ host, port: Number(port), maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    const keys = await client.keys(`${prefix}:*`);
    const isJob = await Promise.all(keys.map(async (key) => (await client.type(key)) === 'hash' && (await client.hexists(key, 'data')) === 1));
    return keys.filter((_, i) => isJob[i]);
  } finally {
    client.disconnect();
  }
}

let redis: TestRedisSentinels;
let platform: TestPlatform;
let integrator: TestIntegrator;
let agency: SeededOrganisation;

beforeAll(async () => {
  redis = await startTestRedisSentinels();
  integrator = await TestIntegrator.start({ secret: SECRET, answer: refuseFirst });
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'webhook-dispatcher'], {
    // Every service reaches Redis through the Sentinels (the dispatcher's queues, everyone's rate limits).
    ...redis.env,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // Every first call fails: the breaker must not hold deliveries, this test is about their retries.
    WEBHOOK_BREAKER_THRESHOLD: '100000',
    // A retry lost with the primary is queued again from the delivery log after 5 s instead of 5 min.
    WEBHOOK_RECOVERY_AFTER_MS: '5000',
  });
  agency = await seedAgencyWithWebhooks(platform, { name: 'Failover Staffing', workers: WORKERS, integratorUrl: integrator.url, secret: SECRET });
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  integrator?.close();
  await redis?.stop();
});

describe('a Redis failover behind Sentinel in the middle of webhook deliveries', () => {
  it('delivers every answer’s webhook, retried through BullMQ on the promoted replica', async () => {
    const sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
    const workerIds = agency.workers.map((worker) => worker.id);
    const offerIds: string[] = [];
    for (let i = 0; i < OFFERS; i++) {
      const created = await sender.createOffer(offerBody(agency.user.id, workerIds));
      expect(created.status).toBe(201);
      offerIds.push(created.text);
    }
    const answers = offerIds.flatMap((offerId) => agency.workers.map((worker) => ({ offerId, worker })));

    const primaryBefore = await redis.currentPrimary();
    /** Runs beside the answers: cuts the replica off, lets the primary alone take some retries, kills it. */
    const failOver = async () => {
      await redis.cutOffReplica();
      const alone = await redis.currentPrimary();
      const jobsBefore = new Set(await jobKeys(alone, platform.env.QUEUE_PREFIX));
      const refused = refusals();
      await eventually(() => refusals() >= refused + 10, 30_000, 'ten more refusals with the replica cut off');
      // The dispatcher queues a refusal's retry after the integrator has answered: wait for one on the primary alone.
      await eventually(
        async () => (await jobKeys(alone, platform.env.QUEUE_PREFIX)).some((key) => !jobsBefore.has(key)),
        30_000,
        'a retry queued on the primary alone',
      );
      await redis.killPrimary();
      const primary = await eventually(
        async () => {
          const named = await redis.currentPrimary();
          return named !== primaryBefore && named;
        },
        60_000,
        'the Sentinels naming a new primary',
      );
      failedOver = true;
      return primary;
    };
    let failover: Promise<string> | undefined;
    const answered: Array<Promise<number>> = [];
    const start = performance.now();
    for (const [i, { offerId, worker }] of answers.entries()) {
      const due = start + (i * 1000) / ANSWERS_PER_SECOND - performance.now();
      if (due > 0) await sleep(due);
      if (i === answers.length / 2) failover = failOver();
      answered.push(sender.as(worker.token).answer(offerId, i % 3 === 0 ? 'rejected' : 'applied').then((result) => result.status));
    }
    expect(new Set(await Promise.all(answered))).toEqual(new Set([200]));
    const primaryAfter = await failover;
    expect(primaryAfter).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(primaryAfter).not.toBe(primaryBefore);

    const key = (offerId: string, workerId: string) => `${offerId}/${workerId}`;
    const expected = new Set(answers.map(({ offerId, worker }) => key(offerId, worker.id)));
    const succeeded = () => new Set(responseCalls.filter((call) => call.status === 200).map((call) => key(call.offerId, call.workerId)));
    await eventually(() => [...expected].every((answer) => succeeded().has(answer)), 180_000, 'every answer’s webhook answered 200');

    // One delivery per answer: every call for it carries its one webhook-id, the first refused, then a 200.
    const byAnswer = new Map<string, Call[]>();
    for (const call of responseCalls) byAnswer.set(key(call.offerId, call.workerId), [...(byAnswer.get(key(call.offerId, call.workerId)) ?? []), call]);
    expect([...byAnswer.keys()].sort()).toEqual([...expected].sort());
    for (const [answer, calls] of byAnswer) {
      expect({ answer, webhookIds: new Set(calls.map((call) => call.webhookId)).size, first: calls[0].status, last: calls.at(-1)?.status }).toEqual({
        answer,
        webhookIds: 1,
        first: 503,
        last: 200,
      });
    }
    expect(new Set(responseCalls.map((call) => call.webhookId)).size).toBe(expected.size);
    expect(responseCalls.every((call) => call.verified)).toBe(true);

    // Retries made after the Sentinels named the replica ran as BullMQ jobs on it.
    const retriesAfterFailover = responseCalls.filter((call) => call.afterFailover && call.status === 200);
    expect(retriesAfterFailover.length).toBeGreaterThan(0);

    const health = await eventually(
      async () => {
        const response = await fetch(`${platform.url('webhook-dispatcher')}/health`);
        return response.ok && ((await response.json()) as { info?: { redis?: { status?: string } } });
      },
      60_000,
      'the dispatcher healthy, its Redis up',
    );
    expect(health.info?.redis?.status).toBe('up');

    await eventually(
      async () => {
        const [{ succeeded: done }] = await queryDatabase<{ succeeded: number }>(
          platform.database.url,
          `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded FROM dispatcher.delivery`,
        );
        return done === expected.size;
      },
      30_000,
      'every delivery logged as succeeded',
    );
    // Retries lost with the primary were queued again from the delivery log.
    const metrics = await (await fetch(`${platform.url('webhook-dispatcher')}/metrics`)).text();
    const recovered = Number(/^webhook_deliveries_recovered_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? 0);
    expect(recovered).toBeGreaterThan(0);
    console.log(
      `${expected.size} answers, ${responseCalls.length} calls, ${retriesAfterFailover.length} retries answered 200 after the failover, ` +
        `${recovered} deliveries queued again from the log (their retry lost with the primary)`,
    );
  }, 300_000);
});
