import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreatedWorker } from '@availability/platform-client';
import {
  eventually,
  freePort,
  queryDatabase,
  ServiceProcess,
  startTestPlatform,
  startTestRedisServer,
  type TestPlatform,
  type TestRedisServer,
} from '@availability/testing';
import { call, EventPublisher, offerCreated, sleep } from './helpers.js';

/**
 * Pushes whose jobs Redis lost: notification-service as a process on a private Redis (so its data can
 * be taken away), real PostgreSQL and JetStream, the recording push transport. The push recovery
 * sweep reads what is unfinished from the database and queues it again.
 */
const RECOVER_AFTER_MS = 1_500;
const BACKOFF_MS = 2_000;
let platform: TestPlatform;
let redis: TestRedisServer;
let events: EventPublisher;
let service: string;
let organisationId: string;
let workers: CreatedWorker[];

beforeAll(async () => {
  redis = await startTestRedisServer();
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    REDIS_URL: redis.url,
    PUSH_TRANSPORT: 'recording',
    PUSH_ATTEMPTS: '3',
    PUSH_BACKOFF_MS: String(BACKOFF_MS),
    JOB_RECOVERY_AFTER_MS: String(RECOVER_AFTER_MS),
    JOB_RECOVERY_INTERVAL_MS: '250',
    SMTP_URL: 'smtp://127.0.0.1:9', // no e-mail in this suite
  });
  service = platform.url('notification-service');
  const organisation = await platform.admin.createOrganisation(`Push Recovery ${randomBytes(3).toString('hex')}`, 'hirer');
  organisationId = organisation.id;
  workers = await platform.admin.createWorkers(organisationId, Array.from({ length: 7 }, (_, i) => ({ name: `Worker ${i}` })));
  events = await EventPublisher.connect(platform.events);
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
  await redis?.stop();
});

const newToken = (label: string) => `${label}-${randomBytes(40).toString('base64url')}`;

async function register(worker: CreatedWorker, token: string): Promise<string> {
  const result = await call<{ id: string }>(service, 'PUT', '/worker/devices', worker.token, { token, platform: 'android', appVersion: '1.2.3' });
  expect(result.status).toBe(201);
  return result.json.id;
}

async function pushesTo(token: string, instance = service): Promise<Array<{ eventId: string; success: boolean }>> {
  const result = await call<{ pushes: Array<{ eventId: string; success: boolean }> }>(instance, 'GET', `/dev/push-log?token=${encodeURIComponent(token)}`);
  return result.json.pushes;
}

async function statuses(eventId: string): Promise<Map<string, string>> {
  const rows = await queryDatabase<{ device_id: string; status: string }>(platform.database.url, 'SELECT device_id, status FROM notifications.push_delivery WHERE event_id = $1', [eventId]);
  return new Map(rows.map((row) => [row.device_id, row.status]));
}

async function everyDevice(eventId: string, deviceIds: string[], status: string): Promise<boolean> {
  const outcome = await statuses(eventId);
  return deviceIds.every((id) => outcome.get(id) === status);
}

async function pendingFanOut(eventId: string): Promise<boolean> {
  return (await queryDatabase(platform.database.url, 'SELECT 1 FROM notifications.pending_fan_out WHERE event_id = $1', [eventId])).length > 0;
}

describe('push recovery', () => {
  it('sends a push whose retry Redis lost, once its back-off is long overdue, and no other push twice', async () => {
    const [flakyWorker, steadyWorker] = workers;
    const flaky = newToken('flaky');
    const steady = newToken('steady');
    const flakyId = await register(flakyWorker, flaky);
    const steadyId = await register(steadyWorker, steady);
    await call(service, 'PUT', '/dev/push-failures', undefined, { failures: { [flaky]: 'messaging/server-unavailable' } });
    const event = offerCreated(organisationId, [flakyWorker.id, steadyWorker.id], 'Lost retries');
    await events.publish('offers.created', event);
    await eventually(async () => (await statuses(event.eventId)).get(flakyId) === 'retrying', 10_000, 'the flaky device waiting for its retry');

    // The retry waits in Redis for its back-off; Redis loses it, and FCM would now take the push.
    await redis.loseData();
    await call(service, 'DELETE', '/dev/push-failures');

    await eventually(async () => (await statuses(event.eventId)).get(flakyId) === 'sent', 20_000, 'the flaky device to get its push');
    await eventually(async () => !(await pendingFanOut(event.eventId)), 5_000, 'the fan-out to be finished');
    expect((await pushesTo(flaky)).map((p) => p.success)).toEqual([false, true]);
    expect((await pushesTo(steady)).map((p) => p.success)).toEqual([true]);
    expect((await statuses(event.eventId)).get(steadyId)).toBe('sent');
  });

  it('sends what jobs lost before they ran (or mid-send) were to send, and nothing else', async () => {
    const [, , unclaimedWorker, sendingWorker, sentWorker, lateWorker] = workers;
    const tokens = { unclaimed: newToken('unclaimed'), sending: newToken('sending'), sent: newToken('sent'), late: newToken('late') };
    const unclaimedId = await register(unclaimedWorker, tokens.unclaimed);
    const sendingId = await register(sendingWorker, tokens.sending);
    const sentId = await register(sentWorker, tokens.sent);
    // The state a crash leaves when Redis lost the event's jobs: the fan-out and its worker
    // notifications recorded ten minutes ago, one device never claimed, one claimed by a job that
    // died mid-send, one pushed already.
    const eventId = randomUUID();
    const offerId = randomUUID();
    const url = platform.database.url;
    await queryDatabase(url, `UPDATE notifications.device SET created_at = now() - interval '1 hour' WHERE id = ANY($1::uuid[])`, [[unclaimedId, sendingId, sentId]]);
    // One statement: the recovery sweep runs every 250 ms, and a fan-out it found before its
    // deliveries were written would be sent, claiming the devices this state says are claimed.
    await queryDatabase(
      url,
      `WITH fan_out AS (
         INSERT INTO notifications.pending_fan_out (event_id, offer_id, organisation_id, offer_title, created_at)
         VALUES ($1, $2, $3, 'Lost jobs', now() - interval '10 minutes')
       ), notifications AS (
         INSERT INTO notifications.worker_notification (event_id, worker_id, organisation_id, kind, offer_id, title, body, created_at)
         SELECT $1, w, $3, 'offer.created', $2, 'New offer of work', 'x', now() - interval '10 minutes' FROM unnest($4::text[]) AS w
       )
       INSERT INTO notifications.push_delivery (event_id, worker_id, device_id, kind, offer_id, status, claimed_by, updated_at, sent_at)
       VALUES ($1, $5, $6, 'offer.created', $2, 'sending', $9, now() - interval '10 minutes', NULL),
              ($1, $7, $8, 'offer.created', $2, 'sent', $9, now() - interval '10 minutes', now() - interval '10 minutes')`,
      [eventId, offerId, organisationId, [unclaimedWorker.id, sendingWorker.id, sentWorker.id, lateWorker.id], sendingWorker.id, sendingId, sentWorker.id, sentId, `${eventId}.0`],
    );
    // A device registered after the event was not among its recipients' devices.
    await register(lateWorker, tokens.late);

    await eventually(async () => !(await pendingFanOut(eventId)), 10_000, 'the fan-out to be finished');
    const outcome = await statuses(eventId);
    expect(outcome.get(unclaimedId)).toBe('sent');
    expect(outcome.get(sendingId)).toBe('sent');
    expect(outcome.get(sentId)).toBe('sent');
    expect(outcome.size).toBe(3);
    expect((await pushesTo(tokens.unclaimed)).map((p) => [p.eventId, p.success])).toEqual([[eventId, true]]);
    expect((await pushesTo(tokens.sending)).map((p) => [p.eventId, p.success])).toEqual([[eventId, true]]);
    expect(await pushesTo(tokens.sent)).toEqual([]);
    expect(await pushesTo(tokens.late)).toEqual([]);
  });

  it('gives up a fan-out older than the time to live of its pushes', async () => {
    const worker = workers[6];
    const token = newToken('too-late');
    const deviceId = await register(worker, token);
    const eventId = randomUUID();
    const url = platform.database.url;
    await queryDatabase(url, `UPDATE notifications.device SET created_at = now() - interval '3 days' WHERE id = $1`, [deviceId]);
    await queryDatabase(
      url,
      `INSERT INTO notifications.pending_fan_out (event_id, offer_id, organisation_id, offer_title, created_at) VALUES ($1, $2, $3, 'Yesterday', now() - interval '2 days')`,
      [eventId, randomUUID(), organisationId],
    );
    await queryDatabase(
      url,
      `INSERT INTO notifications.worker_notification (event_id, worker_id, organisation_id, kind, offer_id, title, body, created_at)
       VALUES ($1, $2, $3, 'offer.created', $4, 'New offer of work', 'x', now() - interval '2 days')`,
      [eventId, worker.id, organisationId, randomUUID()],
    );
    await eventually(async () => !(await pendingFanOut(eventId)), 10_000, 'the fan-out to be given up');
    await sleep(300);
    expect(await pushesTo(token)).toEqual([]);
    expect((await statuses(eventId)).size).toBe(0);
  });
});

describe('push recovery with two instances', () => {
  let second: ServiceProcess;

  beforeAll(async () => {
    second = await ServiceProcess.start({ app: 'notification-service', port: await freePort(), env: platform.env });
  });

  afterAll(async () => {
    await second?.stop();
  });

  // Both take the event's jobs and both sweep, every 250 ms across periods of 1.5 s: recovery jobs of
  // different periods and instances ask for the same devices, and the device claims let one of them push.
  it('sends each device whose retry Redis lost one push, whichever instance sweeps', async () => {
    const crowd = await platform.admin.createWorkers(organisationId, Array.from({ length: 20 }, (_, i) => ({ name: `Crowd ${i}` })));
    const tokens = crowd.map((_, i) => newToken(`crowd-${i}`));
    const deviceIds = await Promise.all(crowd.map((worker, i) => register(worker, tokens[i])));
    const instances = [service, second.url];
    // The recording transport is each process's own: both refuse these devices for now.
    const failures = Object.fromEntries(tokens.map((token) => [token, 'messaging/server-unavailable']));
    for (const instance of instances) await call(instance, 'PUT', '/dev/push-failures', undefined, { failures });
    const event = offerCreated(organisationId, crowd.map((worker) => worker.id), 'Lost retries, two instances');
    await events.publish('offers.created', event);
    await eventually(() => everyDevice(event.eventId, deviceIds, 'retrying'), 10_000, 'every device waiting for its retry');

    await redis.loseData();
    for (const instance of instances) await call(instance, 'DELETE', '/dev/push-failures');

    await eventually(() => everyDevice(event.eventId, deviceIds, 'sent'), 20_000, 'every device to get its push');
    await eventually(async () => !(await pendingFanOut(event.eventId)), 5_000, 'the fan-out to be finished');
    await sleep(1_000); // a repeat would come from a sweep after the fan-out's last push
    for (const token of tokens) {
      const pushes = (await Promise.all(instances.map((instance) => pushesTo(token, instance)))).flat();
      expect(pushes.filter((push) => push.success).map((push) => push.eventId)).toEqual([event.eventId]);
    }
  });
});
