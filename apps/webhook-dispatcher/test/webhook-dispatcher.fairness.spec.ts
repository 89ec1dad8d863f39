import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@availability/testing';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, startDispatcherTestBed } from './harness.js';

/**
 * Eight organisations whose endpoints hang, each sent as many events as its in-flight limit: 8 × 16
 * calls, as many as the dispatcher's slots (the intake's here, which is what a first attempt holds
 * while it calls; the retry worker's are as many by default). A healthy organisation's deliveries must
 * not wait for the hanging calls' timeout. Told by events: every healthy webhook arrives while the
 * hanging calls are all still held open (none timed out by the dispatcher), with the timeout long.
 */
const ENDPOINT_LIMIT = 16;
const HANGING_ORGANISATIONS = 8;
const SLOTS = ENDPOINT_LIMIT * HANGING_ORGANISATIONS;

let bed: DispatcherTestBed;

beforeAll(async () => {
  bed = await startDispatcherTestBed({
    WEBHOOK_TIMEOUT_MS: '20000',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_LIMIT),
    WEBHOOK_CONCURRENCY: String(SLOTS),
    WEBHOOK_INTAKE_CONCURRENCY: String(SLOTS),
  });
}, 120_000);

afterAll(async () => {
  await bed?.stop();
});

describe('fairness between organisations', () => {
  it('eight hanging endpoints do not take the slots a healthy organisation needs', async () => {
    const { nats, receiver } = bed;
    const organisation = (path: string) => {
      const id = randomUUID();
      nats.targets.set(id, { baseUrl: `${receiver.url}/${path}`, secrets: ['integrator-secret'] });
      return id;
    };
    receiver.respond = (request) => (request.url.startsWith('/hang') ? 'hang' : { status: 200 });
    const hanging = Array.from({ length: HANGING_ORGANISATIONS }, (_, i) => organisation(`hang-${i}`));
    for (let i = 0; i < ENDPOINT_LIMIT; i++) for (const org of hanging) await nats.publish(OFFER_RESPONSE, offerResponseEvent(org));
    // Every hanging endpoint is being called before the healthy organisation's events are published.
    await eventually(() => hanging.every((_, i) => receiver.to(`/hang-${i}/`).length > 0), 15_000, 'every hanging endpoint to be called');

    const healthy = organisation('healthy');
    for (let i = 0; i < 30; i++) await nats.publish(OFFER_RESPONSE, offerResponseEvent(healthy));
    // Queued behind the hanging calls, they would arrive only once the dispatcher gave those up (20 s).
    await eventually(() => receiver.to('/healthy/').length >= 30, 60_000, 'the healthy deliveries');
    const hangingCalls = receiver.requests.filter((r) => r.url.startsWith('/hang'));
    console.log(`calls to hanging endpoints when the healthy deliveries were all in: ${hangingCalls.length}`);
    expect(hangingCalls.filter((r) => r.hungUpAfterMs !== undefined).length).toBe(0);
    receiver.respond = () => ({ status: 200 });
  }, 120_000);
});
