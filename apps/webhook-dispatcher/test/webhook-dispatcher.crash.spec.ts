import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, queryDatabase, type ServiceProcess, type TestDatabase } from '@availability/testing';
import { WebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, type Receiver, startDispatcherTestBed, type TestNats } from './harness.js';

/**
 * kill -9 while thousands of deliveries are in flight, restart, and every event is still delivered:
 * JetStream redelivers events that were not acked, BullMQ takes up jobs whose worker died. Repeats are
 * possible only for calls that were in flight at the crash; the integrator de-duplicates by webhook-id.
 */
const EVENTS = 3_000;

let bed: DispatcherTestBed;
let database: TestDatabase;
let nats: TestNats;
let receiver: Receiver;
let dispatcher: ServiceProcess;

beforeAll(async () => {
  bed = await startDispatcherTestBed({
    WEBHOOK_LOCK_DURATION_MS: '3000',
    WEBHOOK_INTAKE_ACK_WAIT_MS: '3000',
    WEBHOOK_BACKOFF_BASE_MS: '200',
    WEBHOOK_BACKOFF_CAP_MS: '1000',
  });
  ({ database, nats, receiver, dispatcher } = bed);
  receiver.respond = () => ({ status: 200, delayMs: 3 });
}, 60_000);

afterAll(async () => {
  await bed?.stop();
});

describe('webhook-dispatcher crash safety', () => {
  it('delivers every event after a SIGKILL in the middle of a burst', async () => {
    const organisations = Array.from({ length: 5 }, () => randomUUID());
    for (const org of organisations) nats.targets.set(org, { baseUrl: `${receiver.url}/${org}`, secrets: ['crash-secret'] });
    const published: string[] = [];
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) {
        const event = offerResponseEvent(organisations[i % organisations.length]);
        published.push(`${event.eventId}:${event.organisationId}`);
        await nats.publish(OFFER_RESPONSE, event);
      }
    })();
    // Kill once deliveries are flowing and many are still queued.
    await eventually(() => receiver.requests.length >= 500, 60_000, '500 deliveries before the crash');
    await dispatcher.kill();
    const atCrash = receiver.requests.length;
    await publishing;
    await dispatcher.start();

    await eventually(() => new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size >= EVENTS, 120_000, 'every event delivered');
    const ids = receiver.requests.map((r) => r.headers['webhook-id'] as string);
    const unique = new Set(ids);
    const duplicates = ids.length - unique.size;
    console.log(`crash test: ${EVENTS} events, ${atCrash} requests before the kill, ${ids.length} requests in all, ${unique.size} unique, ${duplicates} duplicates`);
    expect([...unique].sort()).toEqual([...published].sort());
    // Only calls whose outcome was not yet recorded at the crash may repeat: first attempts taken from
    // the stream (at most the intake's concurrency) and retries (at most the workers'), whether still
    // in flight or their outcome waiting for its batched write. A busy machine gets nearer the bound.
    const defaults = new WebhookDispatcherConfig();
    expect(duplicates).toBeLessThanOrEqual(defaults.WEBHOOK_INTAKE_CONCURRENCY + defaults.WEBHOOK_CONCURRENCY);

    // A first attempt's outcome is written up to WEBHOOK_RECORD_LINGER_MS after its webhook arrived:
    // the log is complete once it holds every event, not at the first moment all its rows succeeded.
    await eventually(async () => {
      const counts = await queryDatabase<{ status: string; n: number }>(database.url, `SELECT status, count(*)::int AS n FROM dispatcher.delivery GROUP BY status`);
      if (counts.length === 1 && counts[0].status === 'succeeded' && counts[0].n === EVENTS) return true;
      throw new Error(`the log holds ${JSON.stringify(counts)}`);
    }, 30_000, 'every delivery logged as succeeded');
  });
});
