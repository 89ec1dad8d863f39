import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DAY_MS, loadConfig, Pruner } from '@availability/service-core';
import type { TestDatabase } from '@availability/testing';
import { NotificationServiceConfig } from '../src/config/notification-service.config.js';
import { PushRepository } from '../src/push/push.repository.js';
import { notificationRetention } from '../src/retention/notification-retention.js';
import { notificationsDatabase } from './helpers.js';

/** notification-service's retention on a real database: each log loses what is past its policy, and nothing a pending fan-out still reads. */
let database: TestDatabase;
let dataSource: DataSource;

const NOW = Date.now();
const at = (msAgo: number) => new Date(NOW - msAgo);
const config = loadConfig(NotificationServiceConfig, {});
const KEEP = config.WORKER_NOTIFICATION_RETENTION_DAYS * DAY_MS;

function prune(): Promise<Record<string, number>> {
  return new Pruner(dataSource, { classes: notificationRetention(config), intervalMs: 3_600_000, batchRows: 500, runMs: 60_000, now: () => NOW }).pruneOnce();
}

/** An offer event's notification to one worker and its push to one device, written `ago` ms ago; `pending` keeps its fan-out pending. */
async function notified(ago: number, { pending = false, status = 'sent' }: { pending?: boolean; status?: string } = {}): Promise<string> {
  const eventId = randomUUID();
  const offerId = randomUUID();
  const workerId = `w-${eventId.slice(0, 8)}`;
  const deviceId = randomUUID();
  await dataSource.query(
    `INSERT INTO notifications.worker_notification (event_id, worker_id, organisation_id, kind, offer_id, title, body, created_at)
     VALUES ($1, $2, gen_random_uuid(), 'offer', $3, 't', 'b', $4)`,
    [eventId, workerId, offerId, at(ago)],
  );
  await dataSource.query(
    `INSERT INTO notifications.push_delivery (event_id, worker_id, device_id, kind, offer_id, status, created_at, updated_at) VALUES ($1, $2, $3, 'offer', $4, $5, $6, $6)`,
    [eventId, workerId, deviceId, offerId, status, at(ago)],
  );
  if (pending) {
    await dataSource.query(`INSERT INTO notifications.device (id, worker_id, token, token_hash, platform, created_at) VALUES ($1, $2, 't', $3, 'ios', $4)`, [deviceId, workerId, deviceId.replaceAll('-', '').padEnd(64, '0'), at(ago + 1000)]);
    await dataSource.query(`INSERT INTO notifications.pending_fan_out (event_id, offer_id, organisation_id, offer_title, created_at) VALUES ($1, $2, gen_random_uuid(), 't', $3)`, [eventId, offerId, at(ago)]);
  }
  return eventId;
}

async function left(table: string, eventIds: string[]): Promise<string[]> {
  const rows: Array<{ eventId: string }> = await dataSource.query(`SELECT DISTINCT event_id::text AS "eventId" FROM notifications.${table} WHERE event_id = ANY($1::uuid[])`, [eventIds]);
  return eventIds.filter((id) => rows.some((row) => row.eventId === id));
}

beforeAll(async () => {
  ({ database, dataSource } = await notificationsDatabase('retention-test'));
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe("notification-service's retention on PostgreSQL", () => {
  it('removes worker notifications and pushes past their period, except those of a fan-out still pending', async () => {
    const past = await notified(KEEP + 1);
    const abandoned = await notified(KEEP * 2, { status: 'retrying' }); // its fan-out was given up long ago: nothing will run it
    const boundary = await notified(KEEP);
    const recent = await notified(DAY_MS);
    const pending = await notified(KEEP * 2, { pending: true, status: 'sending' });
    const push = new PushRepository(dataSource);
    const unfinishedBefore = await push.unfinishedPushes([pending]);
    expect(unfinishedBefore).toHaveLength(1);

    expect(await prune()).toMatchObject({ 'worker-notifications': 2, 'push-log': 2 });
    const all = [past, abandoned, boundary, recent, pending];
    expect(await left('worker_notification', all)).toEqual([boundary, recent, pending]);
    expect(await left('push_delivery', all)).toEqual([boundary, recent, pending]);
    // The push recovery sweep reads the pending fan-out's rows as before: nothing reads as a push never made.
    expect(await push.unfinishedPushes([pending])).toEqual(unfinishedBefore);
  });

  it('removes answers past their period after their digest went, or after they were recorded when it never did', async () => {
    const keep = config.ANSWER_RETENTION_DAYS * DAY_MS;
    const answers = [
      { recorded: at(keep * 2), emailed: at(keep + 1) }, // e-mailed a millisecond too long ago: goes
      { recorded: at(keep * 2), emailed: at(keep) }, // kept
      { recorded: at(keep * 2), emailed: at(DAY_MS) }, // recorded long ago, e-mailed lately: kept
      { recorded: at(keep + 1), emailed: null }, // its digest was given up: goes
      { recorded: at(DAY_MS), emailed: null }, // waiting for its digest: kept
    ].map((answer) => ({ ...answer, eventId: randomUUID() }));
    await dataSource.query(
      `INSERT INTO notifications.offer_answer (event_id, offer_id, worker_id, response, responded_at, recorded_at, emailed_at)
       SELECT e, gen_random_uuid(), 'w', 'applied', r, r, m FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS a(e, r, m)`,
      [answers.map((a) => a.eventId), answers.map((a) => a.recorded), answers.map((a) => a.emailed)],
    );
    expect(await prune()).toMatchObject({ 'answers-emailed': 1, 'answers-unsent': 1 });
    const ids = answers.map((a) => a.eventId);
    expect(await left('offer_answer', ids)).toEqual([ids[1], ids[2], ids[4]]);
  });

  it('removes parked events handled longer ago than their period; unhandled ones stay', async () => {
    const days = config.PARKED_EVENT_RETENTION_DAYS * DAY_MS;
    await dataSource.query(
      `INSERT INTO notifications.parked_event (subject, stream_sequence, payload, reason, parked_at, handled_at) VALUES
         ('a', 1, '\\x00', 'r', $1, $2), ('b', 2, '\\x00', 'r', $1, $3), ('c', 3, '\\x00', 'r', $1, NULL)`,
      [at(days * 5), at(days + 1), at(days)],
    );
    expect(await prune()).toMatchObject({ 'parked-events': 1 });
    expect(await dataSource.query(`SELECT subject FROM notifications.parked_event ORDER BY subject`)).toEqual([{ subject: 'b' }, { subject: 'c' }]);
  });
});
