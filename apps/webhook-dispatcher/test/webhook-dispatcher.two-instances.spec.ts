import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, queryDatabase, type ServiceProcess, startTestRedisServer, type TestRedisServer } from '@availability/testing';
import { WebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, startDispatcherTestBed } from './harness.js';

/**
 * Two dispatcher processes on one consumer, a database and a queue, as deployed, taking a burst in
 * which every event comes twice, both copies claiming to be its first publication (a relay that
 * published it again), the second copies in another order than the first. So both instances write
 * the same events' deliveries and attempts at the same moments, in batches holding them in different
 * orders, and some calls fail and are retried from the shared queue. One instance is killed (kill -9)
 * in the middle and started again. Every statement of both must succeed: a batch that fails (a
 * deadlock between the two, for one) is logged as a failed event by the instance that ran it.
 * Then an endpoint goes down for a while under a steady rate: both instances hold its deliveries
 * and release them when it answers again; and once more with Redis losing its data (held deliveries'
 * trial jobs with it) in the middle. Their Redis is a private server, so its data can be taken away.
 */
const EVENTS = 1_500;
const ENV = {
  WEBHOOK_LOCK_DURATION_MS: '3000',
  WEBHOOK_INTAKE_ACK_WAIT_MS: '3000',
  WEBHOOK_BACKOFF_BASE_MS: '200',
  WEBHOOK_BACKOFF_CAP_MS: '1000',
  WEBHOOK_BREAKER_THRESHOLD: '5',
  WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
  // Sweeps every second: what Redis loses is queued again within seconds.
  WEBHOOK_RECOVERY_AFTER_MS: '2000',
};

let redis: TestRedisServer;
let bed: DispatcherTestBed;
let second: ServiceProcess;

beforeAll(async () => {
  redis = await startTestRedisServer();
  const env = { ...ENV, REDIS_URL: redis.url };
  bed = await startDispatcherTestBed(env);
  second = await bed.startInstance(env);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await bed?.stop();
  await redis?.stop();
});

/** The lines of an instance's log that say an event's handling failed and was put back. */
const failures = (log: string) => log.split('\n').filter((line) => / failed: .*\(attempt \d+\)/.test(line));

/** The same indexes in another order (Fisher–Yates, seeded: a failure can be run again as it was). */
function shuffled(length: number, seed: number): number[] {
  const order = Array.from({ length }, (_, i) => i);
  let state = seed;
  for (let i = length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** Waits until every event was called at `down`'s endpoint since `upAt`, and its delivery is logged as succeeded. */
async function everyEventDeliveredAfter(upAt: number, down: string, events: Array<{ eventId?: unknown }>): Promise<void> {
  const { receiver, database } = bed;
  const webhookIds = events.map((event) => `${event.eventId as string}:${down}`);
  const answered = () => new Set(receiver.requests.filter((r) => r.url.startsWith(`/${down}/`) && r.at >= upAt).map((r) => r.headers['webhook-id'] as string));
  await eventually(() => webhookIds.every((id) => answered().has(id)), 60_000, 'every event called after the endpoint came back');
  await eventually(async () => {
    const [row] = await queryDatabase<{ succeeded: number; other: number }>(
      database.url,
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status <> 'succeeded')::int AS other
       FROM dispatcher.delivery WHERE organisation_id = $1`,
      [down],
    );
    if (row.succeeded === events.length && row.other === 0) return true;
    throw new Error(`the log holds ${JSON.stringify(row)}`);
  }, 30_000, 'every delivery to the endpoint logged as succeeded');
}

describe('two dispatcher instances taking the same events at once', () => {
  it('write every delivery and attempt without a failed statement, through a kill -9 of one', async () => {
    const { nats, receiver, database, dispatcher } = bed;
    const organisations = Array.from({ length: 5 }, () => randomUUID());
    for (const org of organisations) nats.targets.set(org, { baseUrl: `${receiver.url}/${org}`, secrets: ['two-instances-secret'] });
    // One call in ten fails once: its retry goes through the queue both instances work from.
    receiver.respond = (_request, index) => (index % 10 === 3 ? { status: 503 } : { status: 200, delayMs: 2 });

    const events = Array.from({ length: EVENTS }, (_, i) => offerResponseEvent(organisations[i % organisations.length]));
    const secondCopies = shuffled(EVENTS, 20261128);
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) {
        const first = events[i];
        const again = events[secondCopies[i]];
        await Promise.all([
          nats.publish(OFFER_RESPONSE, first, { msgId: `${first.eventId as string}-a` }),
          nats.publish(OFFER_RESPONSE, again, { msgId: `${again.eventId as string}-b` }),
        ]);
      }
    })();

    await eventually(() => receiver.requests.length >= 800, 60_000, '800 calls before the kill');
    await second.kill();
    const killedLog = second.logs();
    await publishing;
    await second.start();

    const expected = events.map((event) => `${event.eventId as string}:${event.organisationId as string}`).sort();
    await eventually(() => new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size >= EVENTS, 120_000, 'every event called');
    expect([...new Set(receiver.requests.map((r) => r.headers['webhook-id'] as string))].sort()).toEqual(expected);

    // One delivery per event, each succeeded; every attempt it logs was a call the integrator received.
    const logged = await eventually(async () => {
      const [row] = await queryDatabase<{ deliveries: number; succeeded: number; attempts: number }>(
        database.url,
        `SELECT (SELECT count(*)::int FROM dispatcher.delivery) AS deliveries,
                (SELECT count(*)::int FROM dispatcher.delivery WHERE status = 'succeeded') AS succeeded,
                (SELECT count(*)::int FROM dispatcher.attempt) AS attempts`,
      );
      if (row.deliveries === EVENTS && row.succeeded === EVENTS) return row;
      throw new Error(`the log holds ${JSON.stringify(row)}`);
    }, 30_000, 'every delivery logged as succeeded').catch((error: Error) => error);
    // A failed statement is what leaves a delivery behind: it is the first thing to report.
    expect(failures(dispatcher.logs())).toEqual([]);
    expect(failures(killedLog)).toEqual([]);
    expect(failures(second.logs())).toEqual([]);
    if (logged instanceof Error) throw logged;
    // Calls not logged can only be those whose outcome the killed instance had not written yet.
    const defaults = new WebhookDispatcherConfig();
    const calls = receiver.requests.length;
    console.log(`two instances: ${EVENTS} events twice, ${calls} calls, ${logged.attempts} attempts logged`);
    expect(logged.attempts).toBeLessThanOrEqual(calls);
    expect(calls - logged.attempts).toBeLessThanOrEqual(defaults.WEBHOOK_INTAKE_CONCURRENCY + defaults.WEBHOOK_CONCURRENCY);
  }, 240_000);
});

describe('two dispatcher instances and an endpoint that is down for a while', () => {
  it('hold its deliveries in both, call it little meanwhile, and deliver every one once it answers', async () => {
    const { nats, receiver, dispatcher } = bed;
    const down = randomUUID();
    nats.targets.set(down, { baseUrl: `${receiver.url}/${down}`, secrets: ['two-instances-secret'] });
    const DOWN_MS = 3_000;
    const RATE = 100;
    const events = Array.from({ length: 500 }, () => offerResponseEvent(down));
    const start = Date.now();
    const upAt = start + DOWN_MS;
    receiver.respond = (request) => (request.url.startsWith(`/${down}/`) && Date.now() < upAt ? { status: 503 } : { status: 200 });
    const logsBefore = { first: failures(dispatcher.logs()).length, second: failures(second.logs()).length };

    for (let i = 0; i < events.length; i++) {
      const due = start + (i * 1000) / RATE - Date.now();
      if (due > 0) await sleep(due);
      await nats.publish(OFFER_RESPONSE, events[i]);
    }

    const ours = () => receiver.requests.filter((r) => r.url.startsWith(`/${down}/`));
    await everyEventDeliveredAfter(upAt, down, events);

    // While it was down (about 300 events), each instance called it until its breaker opened, then
    // only its trial calls went out: the endpoint was not called once per event.
    const whileDown = ours().filter((r) => r.at < upAt).length;
    console.log(`endpoint down for ${DOWN_MS} ms at ${RATE}/s: ${whileDown} calls meanwhile, ${ours().length} in all`);
    expect(whileDown).toBeLessThan(100);
    // Once the endpoint is back, each event is called once: a queued attempt claims its delivery before
    // it calls, so a trial call and a release's job, or two releases' jobs, never both make one attempt.
    const afterUp = ours().filter((r) => r.at >= upAt).map((r) => r.headers['webhook-id'] as string);
    expect(afterUp.length - new Set(afterUp).size).toBe(0);
    expect(failures(dispatcher.logs()).length).toBe(logsBefore.first);
    expect(failures(second.logs()).length).toBe(logsBefore.second);
  }, 120_000);
});

describe('two dispatcher instances, an endpoint that is down for a while, and Redis losing its data meanwhile', () => {
  it('deliver every event once the endpoint answers, the held ones included', async () => {
    const { nats, receiver, database } = bed;
    const down = randomUUID();
    nats.targets.set(down, { baseUrl: `${receiver.url}/${down}`, secrets: ['two-instances-secret'] });
    const DOWN_MS = 3_000;
    const RATE = 100;
    // Every event comes while the endpoint is down: once it is back, only the held deliveries' trial
    // jobs (queued again by the recovery sweep once Redis lost them) can find it answering.
    const events = Array.from({ length: 250 }, () => offerResponseEvent(down));
    const start = Date.now();
    const upAt = start + DOWN_MS;
    receiver.respond = (request) => (request.url.startsWith(`/${down}/`) && Date.now() < upAt ? { status: 503 } : { status: 200 });

    for (let i = 0; i < events.length; i++) {
      const due = start + (i * 1000) / RATE - Date.now();
      if (due > 0) await sleep(due);
      await nats.publish(OFFER_RESPONSE, events[i]);
    }
    // The endpoint's deliveries are held, their trial jobs in Redis; Redis loses them.
    await sleep(100);
    await redis.loseData();
    expect(Date.now()).toBeLessThan(upAt);
    const heldNow = async () =>
      (await queryDatabase<{ n: number }>(database.url, `SELECT count(*)::int AS n FROM dispatcher.delivery WHERE organisation_id = $1 AND held_at IS NOT NULL`, [down]))[0].n;
    const held = await heldNow();
    console.log(`endpoint down for ${DOWN_MS} ms, ${events.length} events at ${RATE}/s, then Redis's data lost: ${held} deliveries held`);
    expect(held).toBeGreaterThan(events.length / 2);

    const ours = () => receiver.requests.filter((r) => r.url.startsWith(`/${down}/`));
    await everyEventDeliveredAfter(upAt, down, events);
    const afterUp = ours().filter((r) => r.at >= upAt).map((r) => r.headers['webhook-id'] as string);
    console.log(`after the endpoint came back: ${afterUp.length} calls for ${new Set(afterUp).size} events`);
    // Trial jobs queued again by both processes' sweeps, and the releases they make, call no event twice.
    expect(afterUp.length - new Set(afterUp).size).toBe(0);
  }, 120_000);
});
