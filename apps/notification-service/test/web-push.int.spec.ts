import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { OfferCompletedEvent, OfferCreatedEvent, OfferWithdrawnEvent } from '@availability/contracts';
import type { CreatedWorker } from '@availability/platform-client';
import { eventually, generateTestVapidKeys, queryDatabase, startTestPlatform, TestPushService, type TestPushSubscription, type TestPlatform } from '@availability/testing';
import { call, envelope, EventPublisher, offerCreated, sleep } from './helpers.js';

/**
 * Web Push, the third push channel: notification-service as a process with the real
 * contact-directory (worker tokens), PostgreSQL, Redis and JetStream, sending to a push service
 * stand-in on loopback that checks VAPID and decrypts every payload as a browser's would.
 */
let platform: TestPlatform;
let events: EventPublisher;
let pushService: TestPushService;
let service: string;
let organisationId: string;
let workers: CreatedWorker[];
const vapid = generateTestVapidKeys();

interface SubscriptionView {
  id: string;
  pushService: string;
  endpoint: string;
  expirationTime: string | null;
}

interface Problem {
  type: string;
  status: number;
  errors?: Record<string, string[]>;
}

beforeAll(async () => {
  pushService = await TestPushService.start({ applicationServerKey: vapid.publicKey });
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    ...vapid.env,
    WEB_PUSH_ALLOW_LOOPBACK: 'true',
    PUSH_TRANSPORT: 'recording',
    PUSH_BACKOFF_MS: '200',
    SMTP_URL: 'smtp://127.0.0.1:9', // no e-mail in this suite
  });
  service = platform.url('notification-service');
  const organisation = await platform.admin.createOrganisation(`Web Push Test ${randomBytes(3).toString('hex')}`, 'hirer');
  organisationId = organisation.id;
  workers = await platform.admin.createWorkers(organisationId, Array.from({ length: 7 }, (_, i) => ({ name: `Browser worker ${i}` })));
  events = await EventPublisher.connect(platform.events);
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
  await pushService?.stop();
});

async function subscribe(worker: CreatedWorker, subscription: TestPushSubscription = pushService.subscribe()) {
  const result = await call<SubscriptionView>(service, 'PUT', '/worker/web-push-subscriptions', worker.token, subscription);
  expect(result.status).toBe(201);
  return { subscription, id: result.json.id };
}

function payloads(endpoint: string): Array<{ kind: string; offerId: string; title: string; body: string }> {
  return pushService.received(endpoint).map((push) => JSON.parse(push.payload) as { kind: string; offerId: string; title: string; body: string });
}

function created(workerIds: string[], title?: string): OfferCreatedEvent {
  return offerCreated(organisationId, workerIds, title);
}

async function deliveries(eventId: string) {
  return queryDatabase<{ device_id: string; status: string; error_code: string | null; attempts: number }>(
    platform.database.url,
    `SELECT device_id, status, error_code, attempts FROM notifications.push_delivery WHERE event_id = $1`,
    [eventId],
  );
}

describe('subscriptions (worker web app)', () => {
  it('serves the VAPID public key the browser subscribes with', async () => {
    const key = await call<{ publicKey: string }>(service, 'GET', '/worker/web-push/key', workers[0].token);
    expect(key).toEqual({ status: 200, json: { publicKey: vapid.publicKey } });
    expect((await call(service, 'GET', '/worker/web-push/key')).status).toBe(401);
  });

  it('registers idempotently by endpoint, lists without keys, and deletes', async () => {
    const worker = workers[5];
    const subscription = pushService.subscribe();
    const first = await call<SubscriptionView>(service, 'PUT', '/worker/web-push-subscriptions', worker.token, subscription);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ pushService: pushService.url, expirationTime: null });
    expect(first.json.endpoint).not.toContain(subscription.endpoint.slice(-30, -10)); // masked
    const expiry = Date.now() + 7 * 24 * 3600_000;
    const again = await call<SubscriptionView>(service, 'PUT', '/worker/web-push-subscriptions', worker.token, { ...subscription, expirationTime: expiry });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: first.json.id, expirationTime: new Date(expiry).toISOString() });

    const listed = await call<{ subscriptions: Array<Record<string, unknown>> }>(service, 'GET', '/worker/web-push-subscriptions', worker.token);
    expect(listed.json.subscriptions.map((s) => s.id)).toEqual([first.json.id]);
    expect(JSON.stringify(listed.json)).not.toContain(subscription.keys.p256dh);
    expect(JSON.stringify(listed.json)).not.toContain(subscription.keys.auth);

    expect((await call(service, 'DELETE', `/worker/web-push-subscriptions/${first.json.id}`, worker.token)).status).toBe(204);
    expect((await call(service, 'DELETE', `/worker/web-push-subscriptions/${first.json.id}`, worker.token)).status).toBe(404);
    expect((await call<{ subscriptions: unknown[] }>(service, 'GET', '/worker/web-push-subscriptions', worker.token)).json.subscriptions).toEqual([]);
  });

  it("another worker can neither list, delete nor take over a worker's subscription", async () => {
    const [owner, coworker] = [workers[4], workers[5]];
    const rivalOrganisation = await platform.admin.createOrganisation(`Rival ${randomBytes(3).toString('hex')}`, 'agency');
    const [rival] = await platform.admin.createWorkers(rivalOrganisation.id, [{ name: 'Rival worker' }]);
    const { subscription, id } = await subscribe(owner);

    for (const other of [coworker, rival]) {
      const listed = await call<{ subscriptions: SubscriptionView[] }>(service, 'GET', '/worker/web-push-subscriptions', other.token);
      expect(listed.json.subscriptions.map((s) => s.id)).not.toContain(id);
      const deleted = await call<Problem>(service, 'DELETE', `/worker/web-push-subscriptions/${id}`, other.token);
      expect(deleted.status).toBe(404);
      expect(deleted.json.type).toMatch(/\/not-found$/);
      const taken = await call<Problem>(service, 'PUT', '/worker/web-push-subscriptions', other.token, subscription);
      expect(taken.status).toBe(409);
      expect(taken.json.type).toMatch(/\/web-push-subscription-taken$/);
    }
    const owned = await call<{ subscriptions: SubscriptionView[] }>(service, 'GET', '/worker/web-push-subscriptions', owner.token);
    expect(owned.json.subscriptions.map((s) => s.id)).toContain(id);
    // Released by its owner, the endpoint may be registered by whoever uses the browser next.
    expect((await call(service, 'DELETE', `/worker/web-push-subscriptions/${id}`, owner.token)).status).toBe(204);
    expect((await call(service, 'PUT', '/worker/web-push-subscriptions', coworker.token, subscription)).status).toBe(201);
  });

  it('refuses bad subscriptions with 400 problem+json naming each field', async () => {
    const worker = workers[5];
    const good = pushService.subscribe();
    const cases: Array<[unknown, string[]]> = [
      [{ ...good, endpoint: 'http://push.example.com/wpush/1' }, ['endpoint']],
      [{ ...good, endpoint: 'https://10.1.2.3/wpush/1' }, ['endpoint']],
      // Push services are on 443, at the hosts of WEB_PUSH_SERVICE_HOSTS (the major browsers' by default).
      [{ ...good, endpoint: 'https://fcm.googleapis.com:6379/fcm/send/1' }, ['endpoint']],
      [{ ...good, endpoint: 'https://updates.push.services.mozilla.com:22/wpush/v2/1' }, ['endpoint']],
      [{ ...good, endpoint: 'https://push.example.com/wpush/1' }, ['endpoint']],
      [{ ...good, endpoint: `https://push.example.com/${'x'.repeat(1100)}` }, ['endpoint']],
      [{ ...good, keys: { p256dh: good.keys.p256dh.slice(0, 40), auth: good.keys.auth } }, ['keys.p256dh']],
      [{ ...good, keys: { p256dh: good.keys.p256dh, auth: randomBytes(8).toString('base64url') } }, ['keys.auth']],
      [{ ...good, keys: { p256dh: 'x'.repeat(200), auth: good.keys.auth } }, ['keys.p256dh']],
      [{ ...good, expirationTime: Date.now() - 1000 }, ['expirationTime']],
      [{ ...good, expirationTime: 'soon' }, ['expirationTime']],
      [{ endpoint: good.endpoint }, ['keys']],
      [{ endpoint: 'ftp://x', keys: { p256dh: 'AAAA', auth: 'AAAA' } }, ['endpoint', 'keys.auth', 'keys.p256dh']],
    ];
    for (const [body, fields] of cases) {
      const response = await fetch(`${service}/worker/web-push-subscriptions`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${worker.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as Problem;
      expect(problem).toMatchObject({ status: 400, type: expect.stringMatching(/\/validation-failed$/) });
      expect(Object.keys(problem.errors ?? {}).sort()).toEqual(fields);
    }
    expect((await call<{ subscriptions: SubscriptionView[] }>(service, 'GET', '/worker/web-push-subscriptions', worker.token)).json.subscriptions.map((s) => s.endpoint)).not.toContain(good.endpoint);
  });
});

describe('pushes to browsers', () => {
  it('offers.created reaches the subscribed browsers decrypted, beside the FCM devices, once per subscription even when redelivered', async () => {
    const [w0, w1, outsider] = workers;
    const laptop = await subscribe(w0);
    const phoneBrowser = await subscribe(w0);
    const w1Browser = await subscribe(w1);
    const outsiderBrowser = await subscribe(outsider);
    const token = `fcm-${randomBytes(30).toString('base64url')}`;
    expect((await call(service, 'PUT', '/worker/devices', w1.token, { token, platform: 'android' })).status).toBe(201);

    const event = created([w0.id, w1.id], 'Warehouse night shift');
    await events.publish('offers.created', event, `${event.eventId}-first`);
    await eventually(() => pushService.received(w1Browser.subscription.endpoint).length > 0 && payloads(laptop.subscription.endpoint).length > 0, 15_000, 'web pushes');
    await events.publish('offers.created', event, `${event.eventId}-second`);
    await events.publish('offers.created', event, `${event.eventId}-third`);
    await sleep(1_500);

    for (const browser of [laptop, phoneBrowser, w1Browser]) {
      expect(payloads(browser.subscription.endpoint)).toEqual([
        { kind: 'offer.created', offerId: event.offerId, title: 'New offer of work', body: '“Warehouse night shift”: tap to apply or reject.', stage: 'created', stageOrder: 1 },
      ]);
    }
    expect(pushService.received(laptop.subscription.endpoint)[0]).toMatchObject({ ttl: 86400, urgency: 'high', vapid: { sub: 'mailto:push-tests@availability.example' } });
    expect(payloads(outsiderBrowser.subscription.endpoint)).toEqual([]);
    const fcm = await call<{ pushes: Array<{ token: string }> }>(service, 'GET', `/dev/push-log?offerId=${event.offerId}`);
    expect(fcm.json.pushes.map((p) => p.token)).toEqual([token]);

    // One claim per (event, subscription), as per device: three browsers and the phone, each sent once.
    const rows = await deliveries(event.eventId);
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    expect(rows.map((r) => r.device_id)).toEqual(expect.arrayContaining([laptop.id, phoneBrowser.id, w1Browser.id]));
  });

  it('offers.completed and offers.withdrawn arrive with their kinds', async () => {
    const [, , w2, w3] = workers;
    const chosen = await subscribe(w2);
    const passedOver = await subscribe(w3);
    const completed: OfferCompletedEvent = { ...envelope(organisationId), offerId: randomUUID(), title: 'Forklift driver', successfulWorkerIds: [w2.id], unsuccessfulWorkerIds: [w3.id] };
    await events.publish('offers.completed', completed);
    await eventually(() => payloads(chosen.subscription.endpoint).length > 0 && payloads(passedOver.subscription.endpoint).length > 0, 15_000, 'completion pushes');
    expect(payloads(chosen.subscription.endpoint)).toEqual([{ kind: 'offer.successful', offerId: completed.offerId, title: 'You got the work', body: 'You were successful for “Forklift driver”.', stage: 'final', stageOrder: 3 }]);
    expect(payloads(passedOver.subscription.endpoint)).toEqual([{ kind: 'offer.unsuccessful', offerId: completed.offerId, title: 'Offer filled', body: 'You were not selected for “Forklift driver”.', stage: 'final', stageOrder: 3 }]);

    const withdrawn: OfferWithdrawnEvent = { ...envelope(organisationId), offerId: randomUUID(), title: 'Cancelled shift', workerIds: [w2.id, w3.id] };
    await events.publish('offers.withdrawn', withdrawn);
    await eventually(() => payloads(chosen.subscription.endpoint).length > 1 && payloads(passedOver.subscription.endpoint).length > 1, 15_000, 'withdrawal pushes');
    for (const browser of [chosen, passedOver]) {
      expect(payloads(browser.subscription.endpoint)[1]).toEqual({ kind: 'offer.withdrawn', offerId: withdrawn.offerId, title: 'Offer withdrawn', body: '“Cancelled shift” was withdrawn by the sender.', stage: 'final', stageOrder: 3 });
    }
  });

  it('a 410 from the push service prunes the subscription; a 503 is retried without resending to the others', async () => {
    const worker = workers[6]; // no other subscription or device
    const gone = await subscribe(worker);
    const flaky = await subscribe(worker);
    const steady = await subscribe(worker);
    pushService.gone(gone.subscription.endpoint);
    pushService.failNext(flaky.subscription.endpoint, { status: 503 });
    const event = created([worker.id]);
    await events.publish('offers.created', event);

    await eventually(async () => {
      const rows = await deliveries(event.eventId);
      return rows.length === 3 && rows.every((r) => r.status === 'sent' || r.status === 'token_removed');
    }, 20_000, 'every delivery settled');
    const byId = new Map((await deliveries(event.eventId)).map((r) => [r.device_id, r]));
    expect(byId.get(gone.id)).toMatchObject({ status: 'token_removed', error_code: 'web-push/410' });
    expect(byId.get(flaky.id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(byId.get(steady.id)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(payloads(steady.subscription.endpoint).filter((p) => p.offerId === event.offerId)).toHaveLength(1);
    expect(payloads(flaky.subscription.endpoint).filter((p) => p.offerId === event.offerId)).toHaveLength(1);

    const listed = await call<{ subscriptions: SubscriptionView[] }>(service, 'GET', '/worker/web-push-subscriptions', worker.token);
    expect(listed.json.subscriptions.map((s) => s.id)).not.toContain(gone.id);
    expect(listed.json.subscriptions.map((s) => s.id)).toEqual(expect.arrayContaining([flaky.id, steady.id]));
  });
});
