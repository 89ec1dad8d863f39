import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { OfferCompletedEvent, OfferCreatedEvent, OfferWithdrawnEvent } from '@availability/contracts';
import type { CreatedWorker } from '@availability/platform-client';
import { eventually, queryDatabase, startTestPlatform, type TestPlatform } from '@availability/testing';
import { call, envelope, EventPublisher, offerCreated, sleep } from './helpers.js';

/**
 * notification-service as a process, with the real contact-directory verifying worker tokens, real
 * PostgreSQL, Redis and NATS JetStream, and the recording push transport (FCM is not reachable).
 */
let platform: TestPlatform;
let events: EventPublisher;
let service: string;
let organisationId: string;
let workers: CreatedWorker[];

interface RecordedPush {
  token: string;
  platform: string;
  deviceId: string;
  workerId: string;
  eventId: string;
  kind: string;
  offerId: string;
  title: string;
  body: string;
  data: Record<string, string>;
  success: boolean;
  errorCode?: string;
}

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    PUSH_TRANSPORT: 'recording',
    PUSH_BACKOFF_MS: '200',
    RECORDING_PUSH_FAILURES: JSON.stringify({ 'configured-dead-token-0123456789': 'messaging/registration-token-not-registered' }),
    SMTP_URL: 'smtp://127.0.0.1:9', // no e-mail in this suite
  });
  service = platform.url('notification-service');
  const organisation = await platform.admin.createOrganisation(`Push Test ${randomBytes(3).toString('hex')}`, 'hirer');
  organisationId = organisation.id;
  workers = await platform.admin.createWorkers(organisationId, Array.from({ length: 8 }, (_, i) => ({ name: `Worker ${i}` })));
  events = await EventPublisher.connect(platform.events);
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
});

beforeEach(async () => {
  await call(service, 'DELETE', '/dev/push-failures');
});

const newToken = (label: string) => `${label}-${randomBytes(40).toString('base64url')}`;

async function register(worker: CreatedWorker, token: string, platformName: 'ios' | 'android' = 'android') {
  const result = await call<{ id: string }>(service, 'PUT', '/worker/devices', worker.token, { token, platform: platformName, appVersion: '1.2.3' });
  expect([200, 201]).toContain(result.status);
  return result.json.id;
}

async function pushLog(offerId: string): Promise<RecordedPush[]> {
  const result = await call<{ pushes: RecordedPush[] }>(service, 'GET', `/dev/push-log?offerId=${offerId}`);
  return result.json.pushes;
}

/** Waits until the offer's pushes stop changing, then returns them. */
async function settledPushLog(offerId: string, atLeast: number): Promise<RecordedPush[]> {
  await eventually(async () => (await pushLog(offerId)).length >= atLeast, 15_000, `${atLeast} pushes for ${offerId}`);
  await sleep(700);
  return pushLog(offerId);
}

function created(workerIds: string[], title?: string): OfferCreatedEvent {
  return offerCreated(organisationId, workerIds, title);
}

describe('device registry (worker app)', () => {
  it('registers idempotently by token, lists, and deletes', async () => {
    const a = workers[4];
    const token = newToken('registry');
    const first = await call<{ id: string; platform: string; token: string }>(service, 'PUT', '/worker/devices', a.token, { token, platform: 'ios', appVersion: '1.0.0' });
    expect(first.status).toBe(201);
    expect(first.json.platform).toBe('ios');
    expect(first.json.token).not.toContain(token.slice(10, 30)); // never echoed in full
    const again = await call<{ id: string; appVersion: string }>(service, 'PUT', '/worker/devices', a.token, { token, platform: 'ios', appVersion: '1.0.1' });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.appVersion).toBe('1.0.1');
    const second = await register(a, newToken('registry2'));

    const listed = await call<{ devices: Array<{ id: string }> }>(service, 'GET', '/worker/devices', a.token);
    expect(listed.json.devices.map((d) => d.id).sort()).toEqual([first.json.id, second].sort());

    expect((await call(service, 'DELETE', `/worker/devices/${first.json.id}`, a.token)).status).toBe(204);
    expect((await call(service, 'DELETE', `/worker/devices/${first.json.id}`, a.token)).status).toBe(404);
    expect((await call(service, 'DELETE', `/worker/devices/${second}`, a.token)).status).toBe(204);
  });

  it("never hands one worker's device token to another worker, of this or another organisation, until it is released", async () => {
    const [owner, coworker] = [workers[4], workers[5]];
    const rivalOrganisation = await platform.admin.createOrganisation(`Rival ${randomBytes(3).toString('hex')}`, 'agency');
    const [rival] = await platform.admin.createWorkers(rivalOrganisation.id, [{ name: 'Rival worker' }]);
    const token = newToken('owned');
    const registered = await call<{ id: string }>(service, 'PUT', '/worker/devices', owner.token, { token, platform: 'android', appVersion: '1.0.0' });
    expect(registered.status).toBe(201);

    for (const other of [rival, coworker]) {
      const refused = await call<{ type: string; status: number; errors?: Record<string, string[]> }>(service, 'PUT', '/worker/devices', other.token, {
        token,
        platform: 'ios',
        appVersion: '9.9.9',
      });
      expect(refused.status).toBe(409);
      expect(refused.json.type).toMatch(/\/device-token-taken$/);
      expect((await call<{ devices: unknown[] }>(service, 'GET', '/worker/devices', other.token)).json.devices).toEqual([]);
    }
    // The owner keeps the device exactly as registered.
    const owned = await call<{ devices: Array<{ id: string; platform: string; appVersion: string }> }>(service, 'GET', '/worker/devices', owner.token);
    expect(owned.json.devices).toEqual([expect.objectContaining({ id: registered.json.id, platform: 'android', appVersion: '1.0.0' })]);

    // Released on sign-out, the token may be registered by whoever holds the phone next.
    expect((await call(service, 'DELETE', `/worker/devices/${registered.json.id}`, owner.token)).status).toBe(204);
    expect((await call(service, 'PUT', '/worker/devices', coworker.token, { token, platform: 'android' })).status).toBe(201);
  });

  it('rejects bad bodies and missing or invalid worker tokens', async () => {
    const worker = workers[4];
    const bad = await call<{ errors: Record<string, string[]> }>(service, 'PUT', '/worker/devices', worker.token, { token: 'x'.repeat(4097), platform: 'windows' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.errors).sort()).toEqual(['platform', 'token']);
    expect((await call(service, 'PUT', '/worker/devices', worker.token, { token: 'y'.repeat(4096), platform: 'android' })).status).toBe(201);
    expect((await call(service, 'GET', '/worker/devices')).status).toBe(401);
    expect((await call(service, 'GET', '/worker/devices', 'not-a-real-token')).status).toBe(401);
    expect((await call(service, 'GET', '/worker/notifications', 'not-a-real-token')).status).toBe(401);
  });
});

describe('pushes from offer events', () => {
  it('offers.created: every device of every recipient, nobody else; the notification list shows it even without a device', async () => {
    const [w0, w1, w2, w3] = workers;
    const w0phone = newToken('w0-phone');
    const w0tablet = newToken('w0-tablet');
    const w1phone = newToken('w1-phone');
    const outsider = newToken('w3-phone');
    const ids = {
      w0phone: await register(w0, w0phone, 'ios'),
      w0tablet: await register(w0, w0tablet, 'android'),
      w1phone: await register(w1, w1phone, 'android'),
    };
    await register(w3, outsider);
    const event = created([w0.id, w1.id, w2.id], 'Warehouse night shift');
    await events.publish('offers.created', event);

    const pushes = await settledPushLog(event.offerId, 3);
    expect(pushes.map((p) => p.token).sort()).toEqual([w0phone, w0tablet, w1phone].sort());
    const phone = pushes.find((p) => p.token === w0phone) as RecordedPush;
    expect(phone).toMatchObject({
      deviceId: ids.w0phone,
      workerId: w0.id,
      platform: 'ios',
      eventId: event.eventId,
      kind: 'offer.created',
      offerId: event.offerId,
      title: 'New offer of work',
      data: { kind: 'offer.created', offerId: event.offerId, organisationId, eventId: event.eventId },
      success: true,
    });
    expect(phone.body).toContain('Warehouse night shift');

    const deliveries = await queryDatabase<{ device_id: string; status: string }>(
      platform.database.url,
      `SELECT device_id, status FROM notifications.push_delivery WHERE event_id = $1 ORDER BY device_id`,
      [event.eventId],
    );
    expect(deliveries.map((d) => [d.device_id, d.status]).sort()).toEqual(
      [[ids.w0phone, 'sent'], [ids.w0tablet, 'sent'], [ids.w1phone, 'sent']].sort(),
    );

    // w2 has no device, but the app still lists the offer.
    const list = await call<{ notifications: Array<{ offerId: string; kind: string; body: string }>; nextCursor: string | null }>(service, 'GET', '/worker/notifications', w2.token);
    expect(list.status).toBe(200);
    expect(list.json.notifications[0]).toMatchObject({ offerId: event.offerId, kind: 'offer.created' });
    const outsiderList = await call<{ notifications: Array<{ offerId: string }> }>(service, 'GET', '/worker/notifications', w3.token);
    expect(outsiderList.json.notifications.map((n) => n.offerId)).not.toContain(event.offerId);
  });

  it('offers.completed: successful workers are told so, the others that they were not selected', async () => {
    const [w0, w1, w2] = workers;
    const t0 = newToken('c0');
    const t1 = newToken('c1');
    const t2 = newToken('c2');
    await register(w0, t0);
    await register(w1, t1);
    await register(w2, t2);
    const event: OfferCompletedEvent = {
      ...envelope(organisationId),
      offerId: randomUUID(),
      title: 'Forklift driver',
      successfulWorkerIds: [w1.id],
      unsuccessfulWorkerIds: [w0.id, w2.id],
    };
    const devices = await queryDatabase<{ id: string }>(platform.database.url, `SELECT id FROM notifications.device WHERE worker_id = ANY($1)`, [[w0.id, w1.id, w2.id]]);
    await events.publish('offers.completed', event);
    const pushes = await settledPushLog(event.offerId, devices.length);
    expect(pushes.map((p) => p.deviceId).sort()).toEqual(devices.map((d) => d.id).sort());
    const kindByToken = new Map(pushes.map((p) => [p.token, p.kind]));
    expect(kindByToken.get(t1)).toBe('offer.successful');
    expect(kindByToken.get(t0)).toBe('offer.unsuccessful');
    expect(kindByToken.get(t2)).toBe('offer.unsuccessful');
    for (const push of pushes) {
      expect(push.kind).toBe(push.workerId === w1.id ? 'offer.successful' : 'offer.unsuccessful');
      expect(push.body).toContain('Forklift driver');
    }
    expect(new Set(pushes.map((p) => p.deviceId)).size).toBe(pushes.length);
    const list = await call<{ notifications: Array<{ offerId: string; kind: string }> }>(service, 'GET', '/worker/notifications?limit=1', w1.token);
    expect(list.json.notifications).toEqual([expect.objectContaining({ offerId: event.offerId, kind: 'offer.successful' })]);
  });

  it('offers.withdrawn: every original recipient', async () => {
    const recipients = workers.slice(0, 3);
    const event: OfferWithdrawnEvent = { ...envelope(organisationId), offerId: randomUUID(), title: 'Cancelled shift', workerIds: recipients.map((w) => w.id) };
    const devices = await queryDatabase<{ id: string }>(platform.database.url, `SELECT id FROM notifications.device WHERE worker_id = ANY($1)`, [event.workerIds]);
    await events.publish('offers.withdrawn', event);
    const pushes = await settledPushLog(event.offerId, devices.length);
    expect(pushes.map((p) => p.deviceId).sort()).toEqual(devices.map((d) => d.id).sort());
    expect(new Set(pushes.map((p) => p.kind))).toEqual(new Set(['offer.withdrawn']));
  });
});

describe('FCM errors', () => {
  it('deletes tokens FCM reports unregistered or invalid, and keeps the others', async () => {
    const worker = workers[6];
    const dead = 'configured-dead-token-0123456789'; // from RECORDING_PUSH_FAILURES
    const invalid = newToken('invalid');
    const notRegistered = newToken('gone');
    const healthy = newToken('healthy');
    const deadId = await register(worker, dead);
    const invalidId = await register(worker, invalid);
    const goneId = await register(worker, notRegistered);
    const healthyId = await register(worker, healthy);
    const set = await call(service, 'PUT', '/dev/push-failures', undefined, {
      failures: { [invalid]: 'messaging/invalid-argument', [notRegistered]: 'messaging/invalid-registration-token' },
    });
    expect(set.status).toBe(204);

    const event = created([worker.id]);
    await events.publish('offers.created', event);
    await eventually(async () => {
      const rows = await queryDatabase<{ n: number }>(platform.database.url, `SELECT count(*)::int AS n FROM notifications.push_delivery WHERE event_id = $1`, [event.eventId]);
      return rows[0].n >= 4;
    }, 15_000, 'four delivery outcomes');

    const remaining = await queryDatabase<{ id: string }>(platform.database.url, `SELECT id FROM notifications.device WHERE worker_id = $1`, [worker.id]);
    const remainingIds = remaining.map((r) => r.id);
    expect(remainingIds).toContain(healthyId);
    expect(remainingIds).not.toContain(deadId);
    expect(remainingIds).not.toContain(invalidId);
    expect(remainingIds).not.toContain(goneId);
    const outcomes = await queryDatabase<{ device_id: string; status: string; error_code: string | null }>(
      platform.database.url,
      `SELECT device_id, status, error_code FROM notifications.push_delivery WHERE event_id = $1`,
      [event.eventId],
    );
    const byDevice = new Map(outcomes.map((o) => [o.device_id, o]));
    expect(byDevice.get(deadId)).toMatchObject({ status: 'token_removed', error_code: 'messaging/registration-token-not-registered' });
    expect(byDevice.get(invalidId)).toMatchObject({ status: 'token_removed', error_code: 'messaging/invalid-argument' });
    expect(byDevice.get(goneId)).toMatchObject({ status: 'token_removed', error_code: 'messaging/invalid-registration-token' });
    expect(byDevice.get(healthyId)).toMatchObject({ status: 'sent', error_code: null });
    expect((await call<{ devices: unknown[] }>(service, 'GET', '/worker/devices', worker.token)).json.devices).toHaveLength(1);
  });

  it('retries a 503 (server-unavailable) and then succeeds, without resending to devices that already got it', async () => {
    const worker = workers[7];
    const flaky = newToken('flaky');
    const steady = newToken('steady');
    const flakyId = await register(worker, flaky);
    const steadyId = await register(worker, steady);
    await call(service, 'PUT', '/dev/push-failures', undefined, { failures: { [flaky]: { code: 'messaging/server-unavailable', times: 2 } } });
    const event = created([worker.id]);
    await events.publish('offers.created', event);

    await eventually(async () => {
      const rows = await queryDatabase<{ status: string }>(platform.database.url, `SELECT status FROM notifications.push_delivery WHERE event_id = $1 AND device_id = $2`, [event.eventId, flakyId]);
      return rows[0]?.status === 'sent';
    }, 20_000, 'the flaky device to get its push');
    await sleep(500);
    const pushes = await pushLog(event.offerId);
    const toFlaky = pushes.filter((p) => p.token === flaky);
    expect(toFlaky.map((p) => p.success)).toEqual([false, false, true]);
    expect(toFlaky[0].errorCode).toBe('messaging/server-unavailable');
    expect(pushes.filter((p) => p.token === steady).map((p) => p.success)).toEqual([true]);
    const rows = await queryDatabase<{ device_id: string; status: string; attempts: number }>(
      platform.database.url,
      `SELECT device_id, status, attempts FROM notifications.push_delivery WHERE event_id = $1`,
      [event.eventId],
    );
    expect(rows.find((r) => r.device_id === flakyId)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(rows.find((r) => r.device_id === steadyId)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});

describe('redelivery', () => {
  it('an event published twice (different Nats-Msg-Id) sends nothing twice', async () => {
    const [w0, w1] = workers;
    const event = created([w0.id, w1.id]);
    await events.publish('offers.created', event, `${event.eventId}-first`);
    const devices = await queryDatabase<{ id: string }>(platform.database.url, `SELECT id FROM notifications.device WHERE worker_id = ANY($1)`, [event.workerIds]);
    expect(devices.length).toBeGreaterThan(1);
    await settledPushLog(event.offerId, devices.length);
    await events.publish('offers.created', event, `${event.eventId}-second`);
    await events.publish('offers.created', event, `${event.eventId}-third`);
    await sleep(1_500);
    const pushes = await pushLog(event.offerId);
    expect(pushes).toHaveLength(devices.length);
    expect(pushes.map((p) => p.deviceId).sort()).toEqual(devices.map((d) => d.id).sort());
    const notes = await queryDatabase<{ n: number }>(platform.database.url, `SELECT count(*)::int AS n FROM notifications.worker_notification WHERE event_id = $1`, [event.eventId]);
    expect(notes[0].n).toBe(2);
  });
});

describe('health', () => {
  it('reports database, NATS and Redis', async () => {
    const health = await call<{ status: string; info: Record<string, unknown> }>(service, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(Object.keys(health.json.info).sort()).toEqual(['database', 'nats', 'redis']);
  });
});
