import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestRedisServer, type TestRedisServer } from '@availability/testing';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, startDispatcherTestBed } from './harness.js';

/**
 * An orchestrator's SIGTERM is obeyed when the dispatcher's Redis went away while it ran: its retry
 * worker was waiting on Redis, and nothing it holds can be handed back now. The dispatcher's Redis is
 * a private server, so it can be taken away.
 */
let redis: TestRedisServer;
let bed: DispatcherTestBed;

beforeAll(async () => {
  redis = await startTestRedisServer();
  bed = await startDispatcherTestBed({ REDIS_URL: redis.url, WEBHOOK_BACKOFF_BASE_MS: '200', WEBHOOK_BACKOFF_CAP_MS: '200' });
}, 60_000);

afterAll(async () => {
  await bed?.stop();
  await redis?.stop();
});

describe('Redis gone while the dispatcher runs', () => {
  it('stops within 10 s of SIGTERM', async () => {
    // One retry through the worker first, so it is working against Redis when Redis goes.
    const organisationId = randomUUID();
    bed.nats.targets.set(organisationId, { baseUrl: `${bed.receiver.url}/${organisationId}`, secrets: ['redis-gone-secret'] });
    let calls = 0;
    bed.receiver.respond = () => (++calls === 1 ? { status: 500 } : { status: 200 });
    const event = offerResponseEvent(organisationId);
    await bed.nats.publish(OFFER_RESPONSE, event);
    await bed.settled(event.eventId as string, 'succeeded');
    expect(calls).toBe(2);

    // A worker's own close() waits for ever once its Redis has been gone a few seconds.
    await redis.stop();
    await sleep(3_000);
    const stopped = await Promise.race([bed.dispatcher.stop().then(() => 'stopped'), sleep(10_000, 'still running', { ref: false })]);
    if (stopped !== 'stopped') await bed.dispatcher.kill();
    expect(stopped).toBe('stopped');
    // Nest ends a graceful stop by raising the signal again.
    expect(bed.dispatcher.exit).toEqual({ code: null, signal: 'SIGTERM' });
  }, 60_000);
});
