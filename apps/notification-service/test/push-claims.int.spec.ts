import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@availability/service-core';
import type { TestDatabase } from '@availability/testing';
import { DevicesRepository, NOTIFICATIONS_SCHEMA } from '../src/devices/devices.repository.js';
import { NOTIFICATIONS_MIGRATIONS } from '../src/migrations/index.js';
import type { PushTarget } from '../src/push/fan-out.js';
import { PushRepository } from '../src/push/push.repository.js';
import { WebPushSubscriptionsRepository } from '../src/web-push/web-push-subscriptions.repository.js';
import { notificationsDatabase } from './helpers.js';

/** The (event, device) claim on real PostgreSQL: two jobs never both get a device (or Web Push subscription) for one event. */
let database: TestDatabase;
let dataSource: DataSource;
let push: PushRepository;
let targets: PushTarget[];
const event = { eventId: '5b0c3a59-7d5e-4c1a-9f3e-2a1b0c9d8e7f', offerId: '0e4f1c2d-3b4a-4c5d-8e6f-7a8b9c0d1e2f' };
/** No claim is old enough to be taken as abandoned. */
const NONE_ABANDONED = new Date(0);

beforeAll(async () => {
  ({ database, dataSource } = await notificationsDatabase('push-claims-spec'));
  const devices = new DevicesRepository(dataSource);
  push = new PushRepository(dataSource);
  targets = [];
  for (let i = 0; i < 40; i++) {
    const registration = await devices.upsert(`worker-${i % 10}`, `token-${i}-abcdefghijklmnop`, 'android', '1');
    if (registration.taken) throw new Error('a fresh token cannot be taken');
    const { device } = registration;
    targets.push({ d: device.id, w: device.workerId, k: 'offer.created' });
  }
  // Browsers are claimed by the same statement, beside the devices.
  const subscriptions = new WebPushSubscriptionsRepository(dataSource);
  for (let i = 0; i < 10; i++) {
    const registration = await subscriptions.upsert(`worker-${i}`, { endpoint: `https://push.example.com/wpush/${i}`, p256dh: `p256dh-${i}`, auth: `auth-${i}`, expirationTime: null });
    if (registration.taken) throw new Error('a fresh endpoint cannot be taken');
    targets.push({ d: registration.subscription.id, w: registration.subscription.workerId, k: 'offer.created' });
  }
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe('push delivery claims', () => {
  it('concurrent jobs with overlapping devices split them, never share one', async () => {
    const claims = await Promise.all(['job-a', 'job-b', 'job-c'].map((jobId) => push.claimDevices(jobId, event, targets, NONE_ABANDONED)));
    const ids = claims.flat().map((d) => d.deviceId);
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
    const browsers = claims.flat().filter((d) => d.platform === 'web');
    expect(browsers).toHaveLength(10);
    expect(browsers[0]).toMatchObject({ token: expect.stringMatching(/^https:\/\/push\.example\.com\//), p256dh: expect.stringMatching(/^p256dh-/), auth: expect.stringMatching(/^auth-/) });

    // A new attempt of the same job takes back what it held (it died mid-send); other jobs get nothing.
    const [a] = claims;
    expect((await push.claimDevices('job-a', event, targets, NONE_ABANDONED)).map((d) => d.deviceId).sort()).toEqual(a.map((d) => d.deviceId).sort());
    expect(await push.claimDevices('job-z', event, targets, NONE_ABANDONED)).toEqual([]);

    // Sent is final for everyone; retrying is free to claim again.
    await push.recordDeliveries(
      claims.flat().map((d, i) => ({
        eventId: event.eventId,
        workerId: d.workerId,
        deviceId: d.deviceId,
        kind: 'offer.created',
        offerId: event.offerId,
        status: i === 0 ? 'retrying' : 'sent',
        errorCode: i === 0 ? 'messaging/server-unavailable' : null,
        messageId: null,
      })),
    );
    const again = await push.claimDevices('job-a', event, targets, NONE_ABANDONED);
    expect(again.map((d) => d.deviceId)).toEqual([claims.flat()[0].deviceId]);
  });

  it('jobs claiming the same devices in opposite orders, as another instance may hold them, both finish and split them', async () => {
    const second = await createDataSource({ url: database.url, schema: NOTIFICATIONS_SCHEMA, migrations: NOTIFICATIONS_MIGRATIONS, poolSize: 2, applicationName: 'push-claims-spec-2' }).initialize();
    try {
      const theirs = new PushRepository(second);
      for (let round = 0; round < 5; round++) {
        const next = { ...event, eventId: randomUUID() };
        const claims = await Promise.all([push.claimDevices('job-a', next, targets, NONE_ABANDONED), theirs.claimDevices('job-b', next, [...targets].reverse(), NONE_ABANDONED)]);
        const ids = claims.flat().map((d) => d.deviceId);
        expect(new Set(ids).size).toBe(targets.length);
        expect(ids).toHaveLength(targets.length);
      }
    } finally {
      await second.destroy();
    }
  });

  it('takes over a claim another job left sending only once it is older than abandonedBefore', async () => {
    const next = { ...event, eventId: randomUUID() };
    const lost = await push.claimDevices('lost-job', next, targets.slice(0, 3), NONE_ABANDONED);
    expect(lost).toHaveLength(3);
    expect(await push.claimDevices('recovery-job', next, targets.slice(0, 3), new Date(Date.now() - 60_000))).toEqual([]);
    const taken = await push.claimDevices('recovery-job', next, targets.slice(0, 3), new Date(Date.now() + 60_000));
    expect(taken.map((d) => d.deviceId).sort()).toEqual(lost.map((d) => d.deviceId).sort());
    // Taken over, the claim is the recovery job's: the lost job, run again, gets nothing.
    expect(await push.claimDevices('lost-job', next, targets.slice(0, 3), NONE_ABANDONED)).toEqual([]);
  });
});
