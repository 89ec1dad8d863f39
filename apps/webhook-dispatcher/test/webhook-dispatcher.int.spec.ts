import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { QueueName } from '@availability/jobs';
import { signRequest, verifyRequest, verifyStandardWebhook } from '@availability/webhook-signing';
import { eventually, freePort, queryDatabase, ServiceProcess, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { trialJobIdFor } from '../src/delivery/retry-queue.js';
import { jobIdFor } from '../src/domain/webhook-call.js';
import {
  type AdminApi,
  CONTACT_ADDED,
  contactAddedEvent,
  DISPATCHER_ADMIN_TOKEN as ADMIN_TOKEN,
  type DeliveryJson,
  type DispatcherTestBed,
  OFFER_RESPONSE,
  offerResponseEvent,
  type Receiver,
  startDispatcherTestBed,
  type TestNats,
} from './harness.js';

/**
 * webhook-dispatcher as a process, with real PostgreSQL, Redis and NATS JetStream; the example
 * integrator as a process; scripted receivers on loopback; a fake contact-directory responder.
 * Retry timings are shrunk to milliseconds.
 */
const SECRET = 'integrator-secret-1';
const NEW_SECRET = 'integrator-secret-2';

let bed: DispatcherTestBed;
let database: TestDatabase;
let events: TestEventNamespace;
let nats: TestNats;
let dispatcher: ServiceProcess;
let integrator: ServiceProcess;
let receiver: Receiver;
let admin: AdminApi;
let settled: (eventId: string, status: string, timeoutMs?: number) => Promise<DeliveryJson>;

/** Each test works for its own organisation, so endpoint state (breaker, disabled) never leaks between tests. */
function organisation(baseUrl: string | null, secrets = [SECRET]): string {
  const id = randomUUID();
  nats.targets.set(id, { baseUrl, secrets });
  return id;
}

/**
 * Writes into the log what a first attempt answered 503 leaves: the delivery `failed`, its retry due
 * now, held or not; nothing in Redis. Returns the delivery's webhook id.
 */
async function logFailedFirstAttempt(event: Record<string, unknown>, org: string, url: string, { held }: { held: boolean }): Promise<string> {
  const webhookId = `${event.eventId as string}:${org}`;
  await queryDatabase(
    database.url,
    `WITH d AS (
       INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, attempts, next_attempt_at, last_status_code, last_error, held_at)
       VALUES ($1, $2, $3, $4, 'POST', '/offer/response', $5, $6, 'failed', 1, now(), 503, 'HTTP 503', CASE WHEN $7::boolean THEN now() END) RETURNING id)
     INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code, error_message)
     SELECT id, 1, 0, now(), 5, 503, 'HTTP 503' FROM d`,
    [event.eventId, org, OFFER_RESPONSE, webhookId, JSON.stringify(event), url, held],
  );
  return webhookId;
}

/** The dispatcher's BullMQ queue, as the test's own client (close it after use). */
function deliveryQueue(): Queue {
  return new Queue(QueueName.WebhookDelivery, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: events.env.QUEUE_PREFIX });
}

const DISPATCHER_ENV = {
  WEBHOOK_TIMEOUT_MS: '600',
  WEBHOOK_MAX_ATTEMPTS: '4',
  WEBHOOK_CLIENT_ERROR_MAX_ATTEMPTS: '2',
  WEBHOOK_BACKOFF_BASE_MS: '100',
  WEBHOOK_BACKOFF_CAP_MS: '800',
  WEBHOOK_ENDPOINT_CONCURRENCY: '4',
  WEBHOOK_BREAKER_THRESHOLD: '5',
  WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
};

beforeAll(async () => {
  integrator = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_SECRET: SECRET } });
  bed = await startDispatcherTestBed(DISPATCHER_ENV);
  ({ database, events, nats, receiver, dispatcher, admin, settled } = bed);
}, 120_000);

afterAll(async () => {
  await bed?.stop();
  await integrator?.stop();
});

describe('delivery and signing', () => {
  it('POSTs /offer/response to the example integrator, which verifies and records it once', async () => {
    const org = organisation(`${integrator.url}/`);
    const event = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, event);

    const delivery = await settled(event.eventId as string, 'succeeded');
    expect(delivery).toMatchObject({ webhookId: `${event.eventId}:${org}`, attempts: 1, lastStatusCode: 200, url: `${integrator.url}/offer/response` });
    const received = (await (await fetch(`${integrator.url}/received`)).json()) as { items: Array<{ webhookId: string; body: string; path: string }> };
    const mine = received.items.filter((item) => item.webhookId === delivery.webhookId);
    expect(mine).toHaveLength(1);
    expect(mine[0].path).toBe('/offer/response');
    // Exact body and key order (DESIGN 4).
    expect(mine[0].body).toBe(
      JSON.stringify({ eventId: event.eventId, offerId: event.offerId, workerId: event.workerId, response: 'applied', respondedAt: event.respondedAt }),
    );
  });

  it('signs with both schemes under a base path, verifiable by our lib and by standardwebhooks, with both secrets while rotating', async () => {
    const org = organisation(`${receiver.url}/hooks/v1`, [SECRET, NEW_SECRET]);
    const event = offerResponseEvent(org, { response: 'rejected' });
    await nats.publish(OFFER_RESPONSE, event);
    await settled(event.eventId as string, 'succeeded');

    const [request] = receiver.requests.filter((r) => r.headers['webhook-id'] === `${event.eventId}:${org}`);
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/v1/offer/response');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toMatchObject({ response: 'rejected' });
    for (const secret of [SECRET, NEW_SECRET]) {
      expect(verifyRequest({ secret, request, body: request.body })).toEqual({ ok: true });
      expect(verifyStandardWebhook({ secret, body: request.body, headers: request.headers })).toEqual({ ok: true });
      expect(new Webhook(secret, { format: 'raw' }).verify(request.body, request.headers as Record<string, string>)).toEqual(JSON.parse(request.body));
    }
    expect(verifyRequest({ secret: 'some-other-secret', request, body: request.body })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(request.headers.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('GETs /contact/new/{workerId} with no body for contacts.added, to the organisation the worker added', async () => {
    const org = organisation(integrator.url);
    const event = contactAddedEvent(org, 'worker 7/ä');
    await nats.publish(CONTACT_ADDED, event);
    const delivery = await settled(event.eventId as string, 'succeeded');
    expect(delivery.url).toBe(`${integrator.url}/contact/new/worker%207%2F%C3%A4`);
    const received = (await (await fetch(`${integrator.url}/received`)).json()) as { items: Array<{ webhookId: string; body: string; method: string }> };
    expect(received.items.find((item) => item.webhookId === delivery.webhookId)).toMatchObject({ method: 'GET', body: '' });
  });

  it('sends nothing to an organisation without a base URL, and logs it as skipped', async () => {
    const org = organisation(null);
    const before = receiver.requests.length;
    const event = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, event);
    const delivery = await settled(event.eventId as string, 'skipped');
    expect(delivery.attempts).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(before);
  });

  it('calls at once for an event seen for the first time, and writes its delivery once, with the outcome', async () => {
    const org = organisation(`${receiver.url}/first-sight`);
    const event = offerResponseEvent(org);
    receiver.respond = (request) => (request.url.startsWith('/first-sight') ? { status: 200, delayMs: 450 } : { status: 200 });
    await nats.publish(OFFER_RESPONSE, event);
    await eventually(() => receiver.to('/first-sight/').length === 1);
    // The call is in flight (answered after 450 ms, within the 600 ms timeout) and nothing is logged yet: the JetStream message is what keeps it.
    expect(await admin.deliveries({ eventId: event.eventId as string })).toEqual([]);
    const delivery = await settled(event.eventId as string, 'succeeded');
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200, url: `${receiver.url}/first-sight/offer/response` });
    expect(delivery.attemptLog).toEqual([expect.objectContaining({ attemptNo: 1, series: 0, statusCode: 200 })]);
    receiver.respond = () => ({ status: 200 });
  });

  it('has JetStream wait the configured ack wait for an event in hand, so a call that takes seconds is not made twice meanwhile', async () => {
    const nc = await events.connect();
    try {
      const jsm = await jetstreamManager(nc);
      for (const name of ['webhook-dispatcher-1', 'webhook-dispatcher-2']) {
        const { config } = await jsm.consumers.info(events.stream, name);
        expect({ name, ackWaitMs: (config.ack_wait ?? 0) / 1e6, backoff: config.backoff ?? [] }).toEqual({ name, ackWaitMs: 30_000, backoff: [] });
      }
    } finally {
      await nc.close();
    }
  });

  it('makes one webhook of an event published again after its delivery finished (the poll, past the duplicate window)', async () => {
    const org = organisation(`${receiver.url}/dup`);
    const event = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, event, { msgId: `${event.eventId}-a` });
    await settled(event.eventId as string, 'succeeded');
    // Published again by the relay's poll (a lost mark), stored again under other message ids: not first publications.
    await nats.publish(OFFER_RESPONSE, event, { msgId: `${event.eventId}-b`, first: false });
    await nats.publish(OFFER_RESPONSE, { ...event }, { msgId: `${event.eventId}-c`, first: false });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] === `${event.eventId}:${org}`)).toHaveLength(1);
    expect(await admin.deliveries({ eventId: event.eventId as string })).toHaveLength(1);
  });

  it('logs every call when two copies of an event both claim to be its first publication: one delivery, same webhook-id', async () => {
    const org = organisation(`${receiver.url}/twice-first`);
    const event = offerResponseEvent(org);
    await Promise.all([nats.publish(OFFER_RESPONSE, event, { msgId: `${event.eventId}-a` }), nats.publish(OFFER_RESPONSE, event, { msgId: `${event.eventId}-b` })]);
    await eventually(() => receiver.to('/twice-first/').length === 2);
    const [delivery] = await eventually(async () => {
      const found = await admin.deliveries({ eventId: event.eventId as string });
      return found.length === 1 && found[0].attempts === 2 ? found : null;
    });
    expect(delivery.status).toBe('succeeded');
    expect(new Set(receiver.to('/twice-first/').map((r) => r.headers['webhook-id']))).toEqual(new Set([`${event.eventId}:${org}`]));
    expect(delivery.attemptLog.map((a) => [a.attemptNo, a.statusCode])).toEqual([
      [1, 200],
      [2, 200],
    ]);
  });
});

describe('two instances', () => {
  it('log every call once under one delivery per event when copies claiming to be first reach both instances', async () => {
    // A second instance shares the durable consumer: each copy is taken by either instance, so pairs are split between them or not.
    const second = await bed.startInstance(DISPATCHER_ENV);
    try {
      const org = organisation(`${receiver.url}/two-instances`);
      const sent = Array.from({ length: 20 }, () => offerResponseEvent(org));
      await Promise.all(sent.flatMap((event) => ['a', 'b'].map((copy) => nats.publish(OFFER_RESPONSE, event, { msgId: `${event.eventId}-${copy}` }))));
      await eventually(() => receiver.to('/two-instances/').length === 40, 15_000, 'both copies of every event called');
      for (const event of sent) {
        const found = await eventually(async () => {
          const deliveries = await admin.deliveries({ eventId: event.eventId as string });
          return deliveries.length === 1 && deliveries[0].attempts === 2 ? deliveries : null;
        });
        expect(found[0]).toMatchObject({ status: 'succeeded', webhookId: `${event.eventId}:${org}` });
        expect(found[0].attemptLog.map((a) => a.attemptNo)).toEqual([1, 2]);
      }
      expect(new Set(receiver.to('/two-instances/').map((r) => r.headers['webhook-id'])).size).toBe(20);
    } finally {
      await second.stop();
    }
  });
});

describe('example integrator verification', () => {
  const call = (path: string, body: string, headers: Record<string, string>, method = 'POST') =>
    fetch(`${integrator.url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body || undefined });
  const sign = (path: string, body: string, options: { secret?: string; now?: Date; method?: string } = {}) =>
    signRequest({ secrets: [options.secret ?? SECRET], method: options.method ?? 'POST', pathWithQuery: path, body, webhookId: `${randomUUID()}:${randomUUID()}`, now: options.now }) as unknown as Record<string, string>;
  const body = JSON.stringify({ eventId: randomUUID(), offerId: 'o1', workerId: 'w1', response: 'applied', respondedAt: new Date().toISOString() });

  it('accepts a good signature and answers /test without one', async () => {
    expect((await fetch(`${integrator.url}/test`)).status).toBe(200);
    expect((await call('/offer/response', body, sign('/offer/response', body))).status).toBe(200);
    expect((await call('/test/auth', '', sign('/test/auth', '', { method: 'GET' }), 'GET')).status).toBe(200);
  });

  it('rejects a tampered body, a wrong secret, a stale timestamp and a missing signature with 401', async () => {
    const headers = sign('/offer/response', body);
    expect((await call('/offer/response', body.replace('applied', 'rejected'), headers)).status).toBe(401);
    expect((await call('/offer/response', body, sign('/offer/response', body, { secret: 'wrong-secret' }))).status).toBe(401);
    const stale = await call('/offer/response', body, sign('/offer/response', body, { now: new Date(Date.now() - 10 * 60_000) }));
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as { detail: string }).detail).toMatch(/timestamp_out_of_tolerance/);
    expect((await call('/offer/response', body, {})).status).toBe(401);
    expect((await call('/test/auth', '', sign('/test/auth', '', { method: 'GET', secret: 'wrong' }), 'GET')).status).toBe(401);
    // Signed for another path.
    expect((await call('/offer/response', body, sign('/other', body))).status).toBe(401);
  });

  it('serves contact suggestions filtered by the optional filter, signed like the rest', async () => {
    const request = JSON.stringify({ userEmailAddresses: ['hirer@example.com'], filter: 'GRACE' });
    const response = await call('/contact-suggestions', request, sign('/contact-suggestions', request));
    expect(response.status).toBe(200);
    const suggestions = (await response.json()) as Array<{ name: string; emailAddress: string; ratings: unknown[] }>;
    expect(suggestions.map((s) => s.emailAddress)).toEqual(['grace@example.com']);
    expect(suggestions[0].ratings).toHaveLength(2);
    const all = JSON.stringify({ userEmailAddresses: ['hirer@example.com'] });
    expect(((await (await call('/contact-suggestions', all, sign('/contact-suggestions', all))).json()) as unknown[]).length).toBe(3);
    expect((await call('/contact-suggestions', request, sign('/contact-suggestions', request, { secret: 'x' }))).status).toBe(401);
  });
});

describe('retries', () => {
  it('retries 500s with back-off until success, with the same webhook-id on every attempt', async () => {
    const org = organisation(`${receiver.url}/flaky500`);
    const event = offerResponseEvent(org);
    let calls = 0;
    receiver.respond = (request) => (request.url.startsWith('/flaky500') && ++calls <= 2 ? { status: 500, body: 'boom '.repeat(1000) } : { status: 200 });
    await nats.publish(OFFER_RESPONSE, event);
    const delivery = await settled(event.eventId as string, 'succeeded');
    const requests = receiver.to('/flaky500/');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([`${event.eventId}:${org}`]));
    expect(delivery.attempts).toBe(3);
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    // The response excerpt is bounded.
    expect(delivery.attemptLog[0].responseExcerpt?.length).toBeLessThanOrEqual(1024);
    receiver.respond = () => ({ status: 200 });
  });

  it('retries timeouts until success', async () => {
    const org = organisation(`${receiver.url}/slow`);
    const event = contactAddedEvent(org, 'w-slow');
    let calls = 0;
    receiver.respond = (request) => (request.url.startsWith('/slow') && ++calls <= 2 ? { status: 200, delayMs: 1_500 } : { status: 200 });
    await nats.publish(CONTACT_ADDED, event);
    const delivery = await settled(event.eventId as string, 'succeeded');
    expect(delivery.attemptLog.map((a) => a.errorKind)).toEqual(['timeout', 'timeout', null]);
    // The dispatcher hung up on each slow attempt itself, well before the 1.5 s answer and not at once
    // (the 600 ms timeout; timer precision and clock adjustments make the exact figure unreliable).
    const [first, second, third] = receiver.to('/slow/');
    for (const timedOut of [first, second]) {
      expect(timedOut.hungUpAfterMs).toBeGreaterThanOrEqual(300);
      expect(timedOut.hungUpAfterMs).toBeLessThan(1_400);
    }
    expect(third.hungUpAfterMs).toBeUndefined();
    expect(receiver.to('/slow/')).toHaveLength(3);
    expect(delivery.attemptLog[0].durationMs).toBeGreaterThanOrEqual(300);
    receiver.respond = () => ({ status: 200 });
  });

  it('honours Retry-After on 429', async () => {
    const org = organisation(`${receiver.url}/paced`);
    const event = offerResponseEvent(org);
    let calls = 0;
    receiver.respond = (request) => (request.url.startsWith('/paced') && ++calls === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 });
    await nats.publish(OFFER_RESPONSE, event);
    await settled(event.eventId as string, 'succeeded');
    const [first, second] = receiver.to('/paced/');
    // Back-off alone would retry within 100 ms; the integrator asked for 2 s.
    expect(second.at - first.at).toBeGreaterThanOrEqual(1_900);
    receiver.respond = () => ({ status: 200 });
  });

  it('dead-letters after the maximum attempts, and after a few attempts for other 4xx', async () => {
    const org = organisation(`${receiver.url}/down`);
    receiver.respond = (request) =>
      request.url.startsWith('/down') ? { status: 503 } : request.url.startsWith('/bad') ? { status: 400 } : { status: 200 };
    const event = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, event);
    const dead = await settled(event.eventId as string, 'dead');
    expect(dead.attempts).toBe(4);
    expect(dead.nextAttemptAt).toBeNull();
    expect(receiver.to('/down/')).toHaveLength(4);

    const badOrg = organisation(`${receiver.url}/bad`);
    const bad = offerResponseEvent(badOrg);
    await nats.publish(OFFER_RESPONSE, bad);
    expect((await settled(bad.eventId as string, 'dead')).attemptLog.map((a) => a.statusCode)).toEqual([400, 400]);
    receiver.respond = () => ({ status: 200 });
  });

  it('queues the retry again when the event comes back and its delivery waits for a retry that was never queued', async () => {
    // An instance killed after its first attempt's outcome (a 503) was logged and before the retry
    // reached the queue: the log says a retry is due, no job exists, and the event was not acked.
    const org = organisation(`${receiver.url}/unqueued`);
    const event = offerResponseEvent(org);
    const webhookId = await logFailedFirstAttempt(event, org, `${receiver.url}/unqueued/offer/response`, { held: false });
    // JetStream redelivers it (not acked): not a first publication, so the intake looks for its delivery.
    await nats.publish(OFFER_RESPONSE, event, { first: false });
    // The recovery sweep would find it only after WEBHOOK_RECOVERY_AFTER_MS (5 minutes here).
    const delivery = await settled(event.eventId as string, 'succeeded', 5_000);
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([503, 200]);
    expect(receiver.to('/unqueued/').map((r) => r.headers['webhook-id'])).toEqual([webhookId]);
  });
});

describe('endpoints', () => {
  it('410 disables the endpoint, announces it, stops calling, and a target-changed broadcast re-enables it', async () => {
    const org = organisation(`${receiver.url}/gone`);
    receiver.respond = (request) => (request.url.startsWith('/gone') ? { status: 410 } : { status: 200 });
    const first = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, first);
    expect((await settled(first.eventId as string, 'dead')).attempts).toBe(1);

    const announced = await eventually(async () => {
      const found = (await events.messages('webhooks.endpoint.disabled')).filter((m) => m.data.organisationId === org);
      return found.length > 0 && found;
    }, 10_000, 'webhooks.endpoint.disabled');
    expect(announced).toHaveLength(1);
    expect(announced[0].data).toMatchObject({ organisationId: org, baseUrl: `${receiver.url}/gone`, reason: expect.stringMatching(/410/) });
    expect(announced[0].msgId).toBe(announced[0].data.eventId);
    expect((await admin.call<{ disabledAt: string | null }>('GET', `/admin/endpoints/${org}`)).json.disabledAt).not.toBeNull();

    const second = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, second);
    expect((await settled(second.eventId as string, 'dead')).lastError).toBe(`endpoint disabled: ${receiver.url}/gone/offer/response answered 410 Gone`);
    expect(receiver.to('/gone/')).toHaveLength(1);

    // The integrator fixed its service and re-saved its base URL on the profile.
    receiver.respond = () => ({ status: 200 });
    nats.targetChanged(org);
    await eventually(async () => (await admin.call<{ disabledAt: string | null }>('GET', `/admin/endpoints/${org}`)).json.disabledAt === null, 5_000, 're-enabled');
    await new Promise((resolve) => setTimeout(resolve, 5_500)); // other instances' cached state expires
    const third = offerResponseEvent(org);
    await nats.publish(OFFER_RESPONSE, third);
    await settled(third.eventId as string, 'succeeded');
  });

  it('a hanging endpoint does not hold up deliveries to a healthy one', async () => {
    const stuck = organisation(`${receiver.url}/hang`);
    const healthy = organisation(`${receiver.url}/healthy`);
    receiver.respond = (request) => (request.url.startsWith('/hang') ? 'hang' : { status: 200 });
    for (let i = 0; i < 60; i++) await nats.publish(OFFER_RESPONSE, offerResponseEvent(stuck));
    await eventually(() => receiver.to('/hang/').length >= 4, 10_000, 'the hanging endpoint to be called');
    const started = Date.now();
    const healthyEvents = Array.from({ length: 30 }, () => offerResponseEvent(healthy));
    for (const event of healthyEvents) await nats.publish(OFFER_RESPONSE, event);
    await eventually(() => receiver.to('/healthy/').length >= 30, 10_000, 'healthy deliveries');
    const elapsed = Date.now() - started;
    console.log(`30 deliveries to a healthy endpoint next to a hanging one: ${elapsed} ms`);
    // Queued behind the hanging endpoint's 60 calls of 600 ms each they would take many seconds.
    expect(elapsed).toBeLessThan(5_000);
    receiver.respond = () => ({ status: 200 });
  });

  it('holds deliveries for an endpoint whose circuit is open in the log, with no job, and releases them all when its trial call succeeds', async () => {
    const down = organisation(`${receiver.url}/down`);
    receiver.respond = (request) => (request.url.startsWith('/down') ? { status: 503 } : { status: 200 });
    // Five consecutive failures (the threshold) open the circuit for a second; their retries meet it open.
    const first = Array.from({ length: 5 }, () => offerResponseEvent(down));
    for (const event of first) await nats.publish(OFFER_RESPONSE, event);
    await eventually(() => receiver.to('/down/').length >= 5, 10_000, 'five failed calls');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = Array.from({ length: 20 }, () => offerResponseEvent(down));
    for (const event of later) await nats.publish(OFFER_RESPONSE, event);

    const queue = deliveryQueue();
    try {
      const held = await eventually(async () => {
        const delivery = await admin.delivery(later[19].eventId as string);
        return delivery?.heldSince && delivery;
      }, 5_000, 'the last event held');
      expect(held).toMatchObject({ status: 'pending', attempts: 0, heldSince: expect.any(String) });
      expect(await queue.getJob(jobIdFor(later[19].eventId as string, down, 0, 1))).toBeUndefined(); // nothing in Redis for it
      const trial = await queue.getJob(trialJobIdFor(down));
      expect(trial && (await trial.getState())).toBe('delayed');
    } finally {
      await queue.close();
    }
    const laterIds = new Set(later.map((event) => `${event.eventId as string}:${down}`));
    // While the circuit is open only trial calls go out (the trial job's, or the breaker's half-open call).
    const laterCalledWhileOpen = receiver.to('/down/').filter((request) => laterIds.has(request.headers['webhook-id'] as string));
    expect(laterCalledWhileOpen.length).toBeLessThanOrEqual(2);

    const answeredFrom = receiver.requests.length;
    receiver.respond = () => ({ status: 200 });
    // The trial call succeeds after the cool-down; everything held goes out, each once, with the attempts it had left.
    for (const event of [...first, ...later]) {
      const delivered = await settled(event.eventId as string, 'succeeded');
      expect(delivered.heldSince).toBeNull();
      expect(delivered.attemptLog.length).toBeLessThanOrEqual(4);
    }
    const delivered = receiver.requests.slice(answeredFrom).filter((request) => request.url.startsWith('/down/'));
    expect(new Set(delivered.map((request) => request.headers['webhook-id'])).size).toBe(25);
    expect(delivered).toHaveLength(25);
  });

  it('releases a held delivery while the job that held it has not finished yet', async () => {
    // A retry job found the circuit open and held its delivery; before BullMQ has marked that job
    // done, the endpoint answers again (another instance's trial) and what was held is released.
    const org = organisation(`${receiver.url}/release-race`);
    const event = offerResponseEvent(org);
    await logFailedFirstAttempt(event, org, `${receiver.url}/release-race/offer/response`, { held: true });
    const queue = deliveryQueue();
    // The holding job, still in Redis under the id of the attempt it was to make (kept far off here).
    const holding = jobIdFor(event.eventId as string, org, 0, 2);
    await queue.add('deliver', { stand_in: true }, { jobId: holding, delay: 600_000 });
    try {
      nats.targetChanged(org);
      const delivery = await settled(event.eventId as string, 'succeeded', 5_000);
      expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([503, 200]);
      expect(delivery.heldSince).toBeNull();
    } finally {
      await queue.remove(holding);
      await queue.close();
    }
  });

  it('dead-letters the deliveries held for an endpoint that its trial call finds gone (410)', async () => {
    const org = organisation(`${receiver.url}/leaving`);
    receiver.respond = (request) => (request.url.startsWith('/leaving') ? { status: 503 } : { status: 200 });
    const failed = Array.from({ length: 5 }, () => offerResponseEvent(org));
    for (const event of failed) await nats.publish(OFFER_RESPONSE, event);
    await eventually(() => receiver.to('/leaving/').length >= 5, 10_000, 'five failed calls');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const arriving = Array.from({ length: 5 }, () => offerResponseEvent(org));
    for (const event of arriving) await nats.publish(OFFER_RESPONSE, event);
    // Every one is seen held before the endpoint's trial call finds it gone: those arriving while the
    // circuit is open are held at intake, the failed ones when their retry meets the open circuit.
    const held = [...failed, ...arriving];
    for (const event of held) {
      const delivery = await eventually(async () => {
        const found = await admin.delivery(event.eventId as string);
        return found?.heldSince && found;
      }, 5_000, `${event.eventId as string} held`);
      expect(delivery.heldSince).toEqual(expect.any(String));
    }

    receiver.respond = (request) => (request.url.startsWith('/leaving') ? { status: 410 } : { status: 200 });
    for (const event of held) {
      const dead = await settled(event.eventId as string, 'dead');
      expect(dead.heldSince).toBeNull();
      expect(dead.lastError).toMatch(/410/);
    }
    expect((await admin.call<{ disabledAt: string | null }>('GET', `/admin/endpoints/${org}`)).json.disabledAt).not.toBeNull();
    receiver.respond = () => ({ status: 200 });
  });
});

describe('operator API', () => {
  it('requires the admin token', async () => {
    expect((await admin.call('GET', '/admin/deliveries', undefined, null)).status).toBe(401);
    expect((await admin.call('GET', '/admin/deliveries', undefined, 'wrong-token')).status).toBe(401);
    expect((await fetch(`${dispatcher.url}/admin/queues`)).status).toBe(401);
    expect((await fetch(`${dispatcher.url}/admin/queues`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });

  it('lists deliveries filtered by organisation and status, paged', async () => {
    const org = organisation(`${receiver.url}/paged`);
    const published = Array.from({ length: 5 }, () => offerResponseEvent(org));
    for (const event of published) await nats.publish(OFFER_RESPONSE, event);
    await eventually(async () => (await admin.deliveries({ organisationId: org, status: 'succeeded' })).length === 5, 10_000, 'five deliveries');
    const page1 = await admin.call<{ items: DeliveryJson[]; nextCursor: string }>('GET', `/admin/deliveries?organisationId=${org}&limit=3`);
    expect(page1.json.items).toHaveLength(3);
    const page2 = await admin.call<{ items: DeliveryJson[]; nextCursor: string | null }>(
      'GET',
      `/admin/deliveries?organisationId=${org}&limit=3&before=${page1.json.nextCursor}`,
    );
    expect(page2.json.items).toHaveLength(2);
    expect(new Set([...page1.json.items, ...page2.json.items].map((d) => d.eventId))).toEqual(new Set(published.map((e) => e.eventId)));
    expect((await admin.deliveries({ organisationId: org, status: 'dead' })).length).toBe(0);
    expect((await admin.call('GET', '/admin/deliveries?status=nope')).status).toBe(400);
    const one = await admin.call<DeliveryJson>('GET', `/admin/deliveries/${page1.json.items[0].id}`);
    expect(one.json.attemptLog).toHaveLength(1);
    expect((await admin.call('GET', '/admin/deliveries/999999999')).status).toBe(404);
  });

  it('redelivers one dead delivery with the same webhook-id, and all failed/dead since a time', async () => {
    const org = organisation(`${receiver.url}/later`);
    receiver.respond = (request) => (request.url.startsWith('/later') ? { status: 500 } : { status: 200 });
    const since = new Date(Date.now() - 1_000).toISOString();
    const published = Array.from({ length: 3 }, () => offerResponseEvent(org));
    for (const event of published) await nats.publish(OFFER_RESPONSE, event);
    for (const event of published) await settled(event.eventId as string, 'dead');

    receiver.respond = () => ({ status: 200 });
    const target = (await admin.delivery(published[0].eventId as string)) as DeliveryJson;
    const redelivered = await admin.call<DeliveryJson>('POST', `/admin/deliveries/${target.id}/redeliver`);
    expect(redelivered.status).toBe(202);
    const done = await settled(published[0].eventId as string, 'succeeded');
    expect(done.series).toBe(1);
    expect(done.attemptLog.at(-1)).toMatchObject({ series: 1, statusCode: 200 });
    const webhookIds = receiver.to('/later/').filter((r) => r.headers['webhook-id'] === target.webhookId);
    expect(webhookIds).toHaveLength(5); // 4 failed + 1 redelivered, one id
    // Only the redelivery says it is one: it may carry an answer older than one delivered since.
    expect(webhookIds.map((r) => r.headers['webhook-redelivery'])).toEqual([undefined, undefined, undefined, undefined, 'true']);

    const all = await admin.call<{ redelivered: number }>('POST', '/admin/deliveries/redeliver', { since, organisationId: org });
    expect(all).toMatchObject({ status: 202, json: { redelivered: 2 } });
    for (const event of published.slice(1)) await settled(event.eventId as string, 'succeeded');
    expect((await admin.call('POST', '/admin/deliveries/redeliver', { since: 'yesterday' })).status).toBe(400);

    const rows = await queryDatabase<{ n: number }>(database.url, `SELECT count(*)::int AS n FROM dispatcher.attempt a JOIN dispatcher.delivery d ON d.id = a.delivery_id WHERE d.organisation_id = $1`, [org]);
    expect(rows[0].n).toBe(15);
  });
});
