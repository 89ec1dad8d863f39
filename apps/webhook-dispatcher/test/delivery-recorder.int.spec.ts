import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, loadConfig, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { WebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { DeliveriesRepository, DISPATCHER_SCHEMA } from '../src/delivery/deliveries.repository.js';
import { DeliveryRecorder } from '../src/delivery/delivery-recorder.js';
import { DISPATCHER_MIGRATIONS } from '../src/migrations/index.js';
import { firstAttemptRecord } from './first-attempt.fixture.js';

/** The delivery log's writes on a real database: what the statements do with what a batch gathers. */
let database: TestDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = createDataSource({ url: database.url, schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS, poolSize: 4, applicationName: 'delivery-recorder-test' });
  await dataSource.initialize();
  await migrate(dataSource, DISPATCHER_SCHEMA);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

/** The delivery of `eventId`: its attempt count, and its attempts' status codes in order. */
function loggedAttempts(eventId: string): Promise<Array<{ attempts: number; logged: number[] }>> {
  return dataSource.query(
    `SELECT d.attempts, array_agg(a.status_code ORDER BY a.attempt_no) AS logged
     FROM ${DISPATCHER_SCHEMA}.delivery d JOIN ${DISPATCHER_SCHEMA}.attempt a ON a.delivery_id = d.id
     WHERE d.event_id = $1 GROUP BY d.id`,
    [eventId],
  );
}

describe('DeliveryRecorder on PostgreSQL', () => {
  it('writes deliveries held from the start held, those handed over within the linger in one statement', async () => {
    const recorder = new DeliveryRecorder(new DeliveriesRepository(dataSource), loadConfig(WebhookDispatcherConfig, { WEBHOOK_RECORD_LINGER_MS: '300' }));
    const eventIds = ['0b6f5c1e-2a3d-4e5f-8a9b-1c2d3e4f5a60', '1c7a6d2f-3b4e-4f6a-9b0c-2d3e4f5a6b71', '2d8b7e3a-4c5f-4a7b-8c1d-3e4f5a6b7c82'];
    // Events of an endpoint that is down, arriving in separate turns of the event loop, as a trickle does.
    const logged = [];
    for (const eventId of eventIds) {
      logged.push(recorder.heldDelivery(firstAttemptRecord(eventId).delivery));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await Promise.all(logged)).map((result) => result.inserted)).toEqual([true, true, true]);
    const rows: Array<{ heldAt: Date | null; createdAt: Date; status: string }> = await dataSource.query(
      `SELECT held_at AS "heldAt", created_at AS "createdAt", status FROM ${DISPATCHER_SCHEMA}.delivery WHERE event_id = ANY($1::uuid[])`,
      [eventIds],
    );
    expect(rows.map((row) => row.status)).toEqual(['pending', 'pending', 'pending']);
    expect(rows.every((row) => row.heldAt !== null)).toBe(true);
    // One statement, one transaction: every row has its start as creation and hold time.
    expect(new Set(rows.flatMap((row) => [row.heldAt?.toISOString(), row.createdAt.toISOString()])).size).toBe(1);
    // The event of one that had a delivery already finds it, and leaves it as it was.
    const again = await recorder.heldDelivery(firstAttemptRecord(eventIds[0]).delivery);
    expect(again).toMatchObject({ inserted: false, held: true });
    await recorder.onModuleDestroy();
  });

  it('answers each delivery of a batch in the order handed over: new ones as inserted, those events had already with their state and attempts', async () => {
    const recorder = new DeliveryRecorder(new DeliveriesRepository(dataSource), loadConfig(WebhookDispatcherConfig, {}));
    const attempted = '8d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f60';
    const held = '9e4f5a6b-7c8d-4e9f-8a1b-2c3d4e5f6a71';
    const fresh = 'a05f6b7c-8d9e-4f0a-9b2c-3d4e5f6a7b82';
    // One delivery with one failed attempt in its series, one held from the start.
    const firstId = await recorder.firstAttempt({ ...firstAttemptRecord(attempted, 503), status: 'failed', nextAttemptAt: new Date(Date.now() + 60_000) });
    await recorder.heldDelivery(firstAttemptRecord(held).delivery);
    // Handed over in one turn: one statement, new and known events mixed, one of them twice.
    const results = await Promise.all([held, fresh, attempted, held].map((eventId) => recorder.delivery(firstAttemptRecord(eventId).delivery)));
    expect(results.map(({ inserted, status, held: isHeld, attemptsInSeries }) => ({ inserted, status, held: isHeld, attemptsInSeries }))).toEqual([
      { inserted: false, status: 'pending', held: true, attemptsInSeries: 0 },
      { inserted: true, status: 'pending', held: false, attemptsInSeries: 0 },
      { inserted: false, status: 'failed', held: false, attemptsInSeries: 1 },
      { inserted: false, status: 'pending', held: true, attemptsInSeries: 0 },
    ]);
    expect(results[2].id).toBe(firstId);
    expect(results[0].id).toBe(results[3].id);
    await recorder.onModuleDestroy();
  });

  it('logs both calls of an event whose two copies each came as its first publication, when they share a statement', async () => {
    // A linger long enough that both first attempts are in one batch, as two copies arriving together are.
    const recorder = new DeliveryRecorder(new DeliveriesRepository(dataSource), loadConfig(WebhookDispatcherConfig, { WEBHOOK_RECORD_LINGER_MS: '200' }));
    const eventId = '3f0c1a52-8f7e-4d3b-9a61-0b2c4d5e6f70';
    const ids = await Promise.all([recorder.firstAttempt(firstAttemptRecord(eventId, 200)), recorder.firstAttempt(firstAttemptRecord(eventId, 201)), recorder.firstAttempt(firstAttemptRecord('5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'))]);
    // One of the copies made the delivery; the other is one more attempt of it.
    expect(ids.slice(0, 2).filter((id) => id !== null)).toHaveLength(1);
    expect(ids[2]).not.toBeNull();
    expect(await loggedAttempts(eventId)).toEqual([{ attempts: 2, logged: [200, 201] }]);
    await recorder.onModuleDestroy();
  });

  it('logs both attempts of a delivery made by two copies of its event at once, in order', async () => {
    const recorder = new DeliveryRecorder(new DeliveriesRepository(dataSource), loadConfig(WebhookDispatcherConfig, {}));
    const eventId = '7c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    const { delivery, ...outcome } = firstAttemptRecord(eventId, 503);
    const logged = await recorder.delivery(delivery);
    const attempt = { ...outcome, deliveryId: logged.id as number, series: 0 };
    // Handed over in one turn, as two copies' calls finishing together are: one batch.
    await Promise.all([recorder.attempt({ ...attempt, statusCode: 503, status: 'failed' }), recorder.attempt({ ...attempt, statusCode: 200 })]);
    expect(await loggedAttempts(eventId)).toEqual([{ attempts: 2, logged: [503, 200] }]);
    await recorder.onModuleDestroy();
  });

  describe('two instances writing the same events at once', () => {
    // Two dispatcher instances meet the same events when JetStream redelivers one whose ack was late, or
    // the relay publishes again: their batches may hold them in any order.
    let other: DataSource;

    beforeAll(async () => {
      other = createDataSource({ url: database.url, schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS, poolSize: 4, applicationName: 'delivery-recorder-test-2' });
      await other.initialize();
    });

    afterAll(async () => {
      await other?.destroy();
    });

    const events = (count: number) => Array.from({ length: count }, () => firstAttemptRecord(randomUUID()));

    it('both finish when their batches hold the events in opposite orders, and both name the one delivery of each', async () => {
      const [mine, theirs] = [new DeliveriesRepository(dataSource), new DeliveriesRepository(other)];
      for (let round = 0; round < 5; round++) {
        const rows = events(200).map((record) => record.delivery);
        const [a, b] = await Promise.all([mine.insertDeliveries(rows), theirs.insertDeliveries([...rows].reverse())]);
        const bInOrder = [...b].reverse();
        expect(rows.filter((_, i) => a[i].inserted === bInOrder[i].inserted)).toEqual([]);
        expect(rows.filter((_, i) => a[i].id === null || a[i].id !== bInOrder[i].id)).toEqual([]);
      }
    });

    it('both finish first attempts in opposite orders: each event has one delivery, and the other copy is told so', async () => {
      const [mine, theirs] = [new DeliveriesRepository(dataSource), new DeliveriesRepository(other)];
      for (let round = 0; round < 5; round++) {
        const records = events(200);
        const [a, b] = await Promise.all([mine.recordFirstAttempts(records), theirs.recordFirstAttempts([...records].reverse())]);
        const bInOrder = [...b].reverse();
        expect(records.filter((_, i) => (a[i] === null) === (bInOrder[i] === null))).toEqual([]);
      }
    });

    it('both finish logging attempts of the same deliveries in opposite orders, and every attempt is logged', async () => {
      const [mine, theirs] = [new DeliveriesRepository(dataSource), new DeliveriesRepository(other)];
      for (let round = 0; round < 5; round++) {
        const logged = await mine.insertDeliveries(events(200).map((record) => record.delivery));
        const attempts = logged.map(({ id }) => {
          const { delivery: _delivery, ...outcome } = firstAttemptRecord(randomUUID(), 503);
          return { ...outcome, deliveryId: id as number, series: 0, status: 'failed' as const, nextAttemptAt: new Date(Date.now() + 60_000) };
        });
        await Promise.all([mine.recordAttempts(attempts), theirs.recordAttempts([...attempts].reverse())]);
        const counts: Array<{ attempts: number; logged: number }> = await dataSource.query(
          `SELECT d.attempts, (SELECT count(*) FROM ${DISPATCHER_SCHEMA}.attempt a WHERE a.delivery_id = d.id)::int AS logged
           FROM ${DISPATCHER_SCHEMA}.delivery d WHERE d.id = ANY($1::bigint[])`,
          [attempts.map((a) => a.deliveryId)],
        );
        expect(counts.filter((c) => c.attempts !== 2 || c.logged !== 2)).toEqual([]);
      }
    });
  });
});
