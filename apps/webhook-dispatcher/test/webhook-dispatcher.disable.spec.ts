import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, type TestEventNamespace } from '@availability/testing';
import { AdminApi, type DeliveryJson, type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, Receiver, startDispatcherTestBed, TestNats } from './harness.js';

/**
 * "Endpoints failing for a long time are disabled and the organisation told", with the window shrunk
 * to 2 seconds (`WEBHOOK_DISABLE_AFTER_HOURS` takes fractions). Its own dispatcher, database and
 * stream, so the short window cannot disable the endpoints of the other suites' tests.
 */
const DISABLE_AFTER_MS = 2_000;

let bed: DispatcherTestBed;
let events: TestEventNamespace;
let nats: TestNats;
let receiver: Receiver;
let admin: AdminApi;
let settled: (eventId: string, status: string, timeoutMs?: number) => Promise<DeliveryJson>;

beforeAll(async () => {
  bed = await startDispatcherTestBed({
    WEBHOOK_DISABLE_AFTER_HOURS: String(DISABLE_AFTER_MS / 3_600_000),
    // Plenty of attempts, each soon after the last, and no breaker in the way: only the window ends the streak.
    WEBHOOK_MAX_ATTEMPTS: '100',
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_BACKOFF_CAP_MS: '200',
    WEBHOOK_BREAKER_THRESHOLD: '1000',
  });
  ({ events, nats, receiver, admin, settled } = bed);
}, 120_000);

afterAll(async () => {
  await bed?.stop();
});

describe('an endpoint failing for longer than WEBHOOK_DISABLE_AFTER_HOURS', () => {
  it('is disabled, its deliveries are dead-lettered with the reason, and webhooks.endpoint.disabled is published', async () => {
    const org = randomUUID();
    const baseUrl = `${receiver.url}/failing`;
    nats.targets.set(org, { baseUrl, secrets: ['integrator-secret'] });
    receiver.respond = (request) => (request.url.startsWith('/failing') ? { status: 503, body: 'down for maintenance' } : { status: 200 });

    const first = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, first);
    const dead = await settled(first.eventId as string, 'dead');
    // Retried (not dead after one 503) until the streak outlasted the window; that attempt ended the delivery.
    expect(dead.attempts).toBeGreaterThan(2);
    expect(dead.attempts).toBeLessThan(100);
    expect(dead.nextAttemptAt).toBeNull();
    expect(dead.lastError).toMatch(/^HTTP 503; endpoint disabled: .*\/failing had no successful call for \d+ s$/);
    expect(dead.attemptLog.every((attempt) => attempt.statusCode === 503)).toBe(true);
    const calls = receiver.to('/failing/');
    expect(calls).toHaveLength(dead.attempts);
    expect(calls[calls.length - 1].at - calls[0].at).toBeGreaterThanOrEqual(DISABLE_AFTER_MS - 50);

    const endpoint = await admin.call<{ disabledAt: string | null; disabledReason: string; failingSince: string | null }>('GET', `/admin/endpoints/${org}`);
    expect(endpoint.json.disabledAt).not.toBeNull();
    expect(endpoint.json.disabledReason).toMatch(/no successful call for \d+ s/);

    // The organisation is told through the event stream (notification-service e-mails its admins).
    const announced = await eventually(async () => {
      const found = (await events.messages('webhooks.endpoint.disabled')).filter((m) => m.data.organisationId === org);
      return found.length > 0 && found;
    }, 10_000, 'webhooks.endpoint.disabled');
    expect(announced).toHaveLength(1);
    expect(announced[0].data).toMatchObject({ organisationId: org, baseUrl, reason: endpoint.json.disabledReason });
    expect(announced[0].msgId).toBe(announced[0].data.eventId);

    // Later events are dead-lettered without a call, with the same reason.
    const second = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, second);
    const skipped = await settled(second.eventId as string, 'dead');
    expect(skipped.attempts).toBe(0);
    expect(skipped.lastError).toBe(`endpoint disabled: ${endpoint.json.disabledReason}`);
    expect(receiver.to('/failing/')).toHaveLength(dead.attempts);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await events.messages('webhooks.endpoint.disabled')).filter((m) => m.data.organisationId === org)).toHaveLength(1);
  });
});
