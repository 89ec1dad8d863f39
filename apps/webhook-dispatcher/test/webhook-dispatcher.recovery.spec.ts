import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, queryDatabase, startTestRedisServer, type TestRedisServer } from '@availability/testing';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, startDispatcherTestBed } from './harness.js';

/**
 * Nothing lost at a steady rate, as production traffic arrives: Redis losing all its data in the middle
 * of 1,000 answers (retries waiting in it), and the dispatcher killed with SIGKILL in the middle of
 * another 1,000. The dispatcher's Redis is a private server, so its data can be taken away.
 */
const EVENTS = 1_000;
const RATE = 100;

let redis: TestRedisServer;
let bed: DispatcherTestBed;
/** Webhook ids the receiver answered 2xx, and every webhook id it was called with. */
let delivered: Set<string>;
let calledWith: string[];

beforeAll(async () => {
  redis = await startTestRedisServer();
  bed = await startDispatcherTestBed({
    REDIS_URL: redis.url,
    // Retries wait up to 2 s, so that some are in Redis whenever its data goes.
    WEBHOOK_BACKOFF_BASE_MS: '2000',
    WEBHOOK_BACKOFF_CAP_MS: '2000',
    WEBHOOK_RECOVERY_AFTER_MS: '2000',
    WEBHOOK_LOCK_DURATION_MS: '3000',
    WEBHOOK_INTAKE_ACK_WAIT_MS: '3000',
  });
}, 60_000);

afterAll(async () => {
  await bed?.stop();
  await redis?.stop();
});

/** Publishes `EVENTS` events evenly spaced at `RATE` a second to a few organisations; returns their webhook ids. */
async function publishSteadily(onProgress: (published: number) => Promise<void> | void): Promise<string[]> {
  const organisations = Array.from({ length: 4 }, () => randomUUID());
  for (const org of organisations) bed.nats.targets.set(org, { baseUrl: `${bed.receiver.url}/${org}`, secrets: ['recovery-secret'] });
  const ids: string[] = [];
  const start = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const due = start + (i * 1000) / RATE - performance.now();
    if (due > 0) await sleep(due);
    const event = offerResponseEvent(organisations[i % organisations.length]);
    ids.push(`${event.eventId}:${event.organisationId}`);
    await bed.nats.publish(OFFER_RESPONSE, event);
    await onProgress(i + 1);
  }
  return ids;
}

/** Every event's webhook got a 2xx, every call carried one of the published ids, and the log says succeeded. */
async function expectAllDelivered(published: string[], label: string): Promise<void> {
  const wanted = new Set(published);
  await eventually(() => published.every((id) => delivered.has(id)), 60_000, `every webhook of ${label} received`);
  const ours = calledWith.filter((id) => wanted.has(id));
  const strangers = calledWith.filter((id) => !wanted.has(id));
  console.log(`${label}: ${published.length} events, ${ours.length} calls, ${ours.length - wanted.size} repeats (retries included)`);
  expect(strangers).toEqual([]);
  await eventually(async () => {
    const rows = await queryDatabase<{ n: number }>(
      bed.database.url,
      `SELECT count(*)::int AS n FROM dispatcher.delivery WHERE webhook_id = ANY($1::text[]) AND status = 'succeeded'`,
      [published],
    );
    return rows[0].n === published.length;
  }, 30_000, `every delivery of ${label} logged as succeeded`);
}

describe('at a steady rate, nothing is lost', () => {
  it('when Redis loses all its data in the middle, with retries waiting in it', async () => {
    delivered = new Set();
    calledWith = [];
    const attempts = new Map<string, number>();
    // The first call of every third webhook fails: its retry waits in Redis for up to 2 s.
    bed.receiver.respond = (request) => {
      const id = request.headers['webhook-id'] as string;
      calledWith.push(id);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      if (n === 1 && attempts.size % 3 === 0) return { status: 500 };
      delivered.add(id);
      return { status: 200 };
    };
    let waitingWhenLost = 0;
    const published = await publishSteadily(async (count) => {
      if (count !== EVENTS / 2) return;
      const [{ n }] = await queryDatabase<{ n: number }>(bed.database.url, `SELECT count(*)::int AS n FROM dispatcher.delivery WHERE status = 'failed'`);
      waitingWhenLost = n;
      await redis.loseData();
    });
    console.log(`Redis data lost with ${waitingWhenLost} retries waiting in it`);
    expect(waitingWhenLost).toBeGreaterThan(0);
    await expectAllDelivered(published, 'Redis data lost');
  }, 120_000);

  it('when the dispatcher is killed (SIGKILL) in the middle and started again', async () => {
    delivered = new Set();
    calledWith = [];
    bed.receiver.respond = (request) => {
      const id = request.headers['webhook-id'] as string;
      calledWith.push(id);
      delivered.add(id);
      return { status: 200, delayMs: 3 };
    };
    const published = await publishSteadily(async (count) => {
      if (count !== EVENTS / 2) return;
      await bed.dispatcher.kill();
      await bed.dispatcher.start();
    });
    await expectAllDelivered(published, 'dispatcher killed');
  }, 120_000);
});
