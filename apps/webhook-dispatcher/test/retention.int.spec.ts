import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import { batchSql, createDataSource, DAY_MS, loadConfig, metricsRegistry, migrate, ProblemException, Pruner, type RetentionClass } from '@availability/service-core';
import { createTestDatabase, eventually, type TestDatabase } from '@availability/testing';
import { WebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { DeliveriesRepository, DISPATCHER_SCHEMA, type DeliveryStatus } from '../src/delivery/deliveries.repository.js';
import type { RetryQueue } from '../src/delivery/retry-queue.js';
import { DeliveryLog } from '../src/delivery-log/delivery-log.js';
import { DISPATCHER_MIGRATIONS } from '../src/migrations/index.js';
import { dispatcherRetention } from '../src/retention/dispatcher-retention.js';
import { firstAttemptRecord } from './first-attempt.fixture.js';

/** The dispatcher's retention on a real database: what each policy removes, and what it leaves while others work on it. */
let database: TestDatabase;
let dataSource: DataSource;
let repository: DeliveriesRepository;

/** The pruners' clock: rows are written at times relative to it. */
const NOW = Date.now();
const at = (msAgo: number) => new Date(NOW - msAgo);
const config = loadConfig(WebhookDispatcherConfig, {});
const classes = dispatcherRetention(config);
const deliveryLog = classes.find((c) => c.name === 'delivery-log') as RetentionClass;

function pruner(retention: RetentionClass[], options: { batchRows?: number; runMs?: number; source?: DataSource } = {}): Pruner {
  return new Pruner(options.source ?? dataSource, { classes: retention, intervalMs: 3_600_000, batchRows: options.batchRows ?? 500, runMs: options.runMs ?? 60_000, now: () => NOW });
}

interface Row {
  status: DeliveryStatus;
  updatedAt: Date;
  held?: boolean;
  attempts?: number;
}

/** Deliveries as the log holds them after their attempts; returns their ids in order. */
async function insertDeliveries(rows: Row[]): Promise<number[]> {
  const inserted: Array<{ id: number }> = await dataSource.query(
    `INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, attempts, created_at, updated_at, held_at)
     SELECT gen_random_uuid(), 'org-retention', 'offers.response.recorded', 'wh', 'POST', '/offer/response', '{}', 'http://integrator.example/x',
            r.status, r.attempts, r.updated_at - interval '1 minute', r.updated_at, CASE WHEN r.held THEN r.updated_at END
     FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::boolean[]) WITH ORDINALITY AS r(status, attempts, updated_at, held, n)
     ORDER BY r.n RETURNING id`,
    [rows.map((r) => r.status), rows.map((r) => r.attempts ?? 1), rows.map((r) => r.updatedAt), rows.map((r) => r.held ?? false)],
  );
  await dataSource.query(
    `INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code)
     SELECT d.id, n, 0, d.updated_at, 5, 200 FROM dispatcher.delivery d, generate_series(1, d.attempts) n WHERE d.id = ANY($1::bigint[])`,
    [inserted.map((r) => r.id)],
  );
  return inserted.map((r) => r.id);
}

async function remaining(ids: number[]): Promise<{ deliveries: number[]; attempts: number[] }> {
  const deliveries: Array<{ id: number }> = await dataSource.query(`SELECT id FROM dispatcher.delivery WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids]);
  const attempts: Array<{ id: number }> = await dataSource.query(`SELECT DISTINCT delivery_id AS id FROM dispatcher.attempt WHERE delivery_id = ANY($1::bigint[]) ORDER BY 1`, [ids]);
  return { deliveries: deliveries.map((r) => r.id), attempts: attempts.map((r) => r.id) };
}

/** A repository whose statements run in `runner`'s open transaction, as a redelivery's or a retry's do in theirs. */
function inTransaction(runner: QueryRunner): DeliveriesRepository {
  return new DeliveriesRepository({ query: (sql: string, params?: unknown[]) => runner.query(sql, params) } as unknown as DataSource);
}

/** Waits until some statement on the database waits for a row lock. */
function someoneWaitsForALock(): Promise<boolean> {
  return eventually(async () => {
    const rows: Array<{ n: number }> = await dataSource.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    return rows[0].n > 0;
  }, 10_000, 'a statement waiting for the pruned rows');
}

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = createDataSource({ url: database.url, schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS, poolSize: 6, applicationName: 'retention-test' });
  await dataSource.initialize();
  await migrate(dataSource, DISPATCHER_SCHEMA);
  repository = new DeliveriesRepository(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe("webhook-dispatcher's retention on PostgreSQL", () => {
  it('removes finished deliveries past the delivery log retention with their attempts, and nothing else', async () => {
    const keep = config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS;
    const ids = await insertDeliveries([
      { status: 'succeeded', updatedAt: at(keep + 1), attempts: 3 }, // 0: a millisecond past: goes
      { status: 'skipped', updatedAt: at(keep + DAY_MS) }, // 1: goes
      { status: 'succeeded', updatedAt: at(keep) }, // 2: exactly as old as the period: kept
      { status: 'succeeded', updatedAt: at(DAY_MS) }, // 3: recent
      { status: 'pending', updatedAt: at(keep * 3) }, // 4: work still to do
      { status: 'failed', updatedAt: at(keep * 3), attempts: 4 }, // 5: retrying
      { status: 'failed', updatedAt: at(keep * 3), held: true }, // 6: held back
      { status: 'dead', updatedAt: at(keep * 3), attempts: 30 }, // 7: a dead letter, kept until handled
    ]);
    expect(await pruner(classes).pruneOnce()).toMatchObject({ 'delivery-log': 2 });
    expect(await remaining(ids)).toEqual({ deliveries: ids.slice(2), attempts: ids.slice(2) });
    expect(classes.map((c) => c.name)).not.toContain('dead-letters');
  });

  it('removes superseded answers past the delivery log retention, as it does succeeded ones', async () => {
    const keep = config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS;
    await dataSource.query(`DELETE FROM dispatcher.delivery`);
    const ids = await insertDeliveries([
      { status: 'superseded', updatedAt: at(keep + 1), attempts: 1 }, // goes with its attempt
      { status: 'superseded', updatedAt: at(keep) }, // exactly as old as the period: kept
      { status: 'failed', updatedAt: at(keep * 3) }, // retrying: kept
    ]);
    expect(await pruner(classes).pruneOnce()).toMatchObject({ 'superseded-answers': 1 });
    expect(await remaining(ids)).toEqual({ deliveries: ids.slice(1), attempts: ids.slice(1) });
  });

  it('removes dead letters only when their own retention is set, and only those past it', async () => {
    const withDeadLetters = dispatcherRetention(loadConfig(WebhookDispatcherConfig, { WEBHOOK_DEAD_LETTER_RETENTION_DAYS: '60' }));
    await dataSource.query(`DELETE FROM dispatcher.delivery`);
    const ids = await insertDeliveries([
      { status: 'dead', updatedAt: at(60 * DAY_MS + 1) },
      { status: 'dead', updatedAt: at(60 * DAY_MS) },
      { status: 'failed', updatedAt: at(90 * DAY_MS) },
    ]);
    expect(await pruner(withDeadLetters).pruneOnce()).toMatchObject({ 'dead-letters': 1 });
    expect((await remaining(ids)).deliveries).toEqual(ids.slice(1));
  });

  it('removes published outbox rows past their hours and handled parked events past their days; unpublished and unhandled ones stay', async () => {
    const hours = config.OUTBOX_RETENTION_HOURS * 3_600_000;
    await dataSource.query(
      `INSERT INTO dispatcher.outbox (event_id, subject, payload, created_at, published_at) VALUES
         (gen_random_uuid(), 'a', '{}', $1, $1), (gen_random_uuid(), 'b', '{}', $2, $2), (gen_random_uuid(), 'c', '{}', $1, NULL)`,
      [at(hours + 1), at(hours)],
    );
    const days = config.PARKED_EVENT_RETENTION_DAYS * DAY_MS;
    await dataSource.query(
      `INSERT INTO dispatcher.parked_event (subject, stream_sequence, payload, reason, parked_at, handled_at) VALUES
         ('a', 1, '\\x00', 'r', $1, $2), ('b', 2, '\\x00', 'r', $1, $3), ('c', 3, '\\x00', 'r', $1, NULL)`,
      [at(days * 5), at(days + 1), at(days)],
    );
    expect(await pruner(classes).pruneOnce()).toMatchObject({ outbox: 1, 'parked-events': 1 });
    expect(await dataSource.query(`SELECT subject FROM dispatcher.outbox ORDER BY subject`)).toEqual([{ subject: 'b' }, { subject: 'c' }]);
    expect(await dataSource.query(`SELECT subject FROM dispatcher.parked_event ORDER BY subject`)).toEqual([{ subject: 'b' }, { subject: 'c' }]);
  });

  it('works off a backlog in batches, and leaves what a run has no time for to the next', async () => {
    const ids = await insertDeliveries(Array.from({ length: 25 }, () => ({ status: 'succeeded' as const, updatedAt: at(90 * DAY_MS) })));
    expect(await pruner([deliveryLog], { batchRows: 10, runMs: 0 }).pruneClass(deliveryLog)).toBe(10);
    expect((await remaining(ids)).deliveries).toHaveLength(15);
    expect(await pruner([deliveryLog], { batchRows: 10 }).pruneClass(deliveryLog)).toBe(15);
    expect((await remaining(ids)).deliveries).toEqual([]);
  });

  it('two pruners on two connection pools at once take different rows: both work, neither ever waits for the other', async () => {
    const rows = 2_000;
    await insertDeliveries(Array.from({ length: rows }, () => ({ status: 'succeeded' as const, updatedAt: at(90 * DAY_MS) })));
    // Each row takes a moment to delete, so that the two pruners' batches overlap for a while.
    await dataSource.query(`CREATE FUNCTION dispatcher.slow_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.0005); RETURN OLD; END $$`);
    await dataSource.query(`CREATE TRIGGER slow_delete BEFORE DELETE ON dispatcher.delivery FOR EACH ROW EXECUTE FUNCTION dispatcher.slow_delete()`);
    const other = createDataSource({ url: database.url, schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS, poolSize: 2, applicationName: 'retention-test-2' });
    await other.initialize();
    try {
      // Watches, while they run, for a pruner's statement waiting for a lock: one that took the other's rows would.
      let done = false;
      let lockWaits = 0;
      let looks = 0;
      const watch = (async () => {
        while (!done) {
          const [{ n }]: Array<{ n: number }> = await dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name LIKE 'retention-test%'`,
          );
          lockWaits += n;
          looks += 1;
        }
      })();
      const [first, second] = await Promise.all([pruner([deliveryLog], { batchRows: 50 }), pruner([deliveryLog], { batchRows: 50, source: other })].map((one) => one.pruneClass(deliveryLog))).finally(() => (done = true));
      await watch;
      expect(first + second).toBe(rows);
      expect(first).toBeGreaterThan(0);
      expect(second).toBeGreaterThan(0);
      expect(looks).toBeGreaterThan(0);
      expect(lockWaits).toBe(0);
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM dispatcher.delivery WHERE ${deliveryLog.where} AND updated_at < $1`, [at(30 * DAY_MS)])).toEqual([{ n: 0 }]);
    } finally {
      await other.destroy();
      await dataSource.query(`DROP TRIGGER slow_delete ON dispatcher.delivery; DROP FUNCTION dispatcher.slow_delete()`);
    }
  });

  it('skips a delivery a redelivery holds, without waiting for it; redelivered, it stays', async () => {
    const [id] = await insertDeliveries([{ status: 'succeeded', updatedAt: at(90 * DAY_MS) }]);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const redelivered = await inTransaction(runner).startRedelivery(id);
      expect(redelivered?.series).toBe(1);
      // The redelivery has not committed: the pruner does not wait for it, and leaves the row.
      expect(await pruner([deliveryLog]).pruneClass(deliveryLog)).toBe(0);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await pruner([deliveryLog]).pruneClass(deliveryLog)).toBe(0);
    expect(await repository.find(id)).toMatchObject({ id, status: 'pending', series: 1 });
  });

  it('a delivery pruned first: the redelivery, retry and recovery waiting for it find nothing, fail nothing and bring nothing back', async () => {
    const [id] = await insertDeliveries([{ status: 'succeeded', updatedAt: at(90 * DAY_MS), attempts: 2 }]);
    const [{ eventId }]: Array<{ eventId: string }> = await dataSource.query(`SELECT event_id AS "eventId" FROM dispatcher.delivery WHERE id = $1`, [id]);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    let waiting: Promise<unknown[]>;
    try {
      const [{ deleted }]: Array<{ deleted: number }> = await runner.query(batchSql(deliveryLog), [at(config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS), 500]);
      expect(deleted).toBe(1);
      // Uncommitted: a redelivery and a queued attempt of the delivery wait for its row.
      waiting = Promise.all([
        repository.startRedelivery(id),
        repository.recordAttempts([
          { deliveryId: id, series: 0, startedAt: new Date(), durationMs: 3, statusCode: 503, errorKind: 'server-error', errorMessage: '503', responseExcerpt: null, status: 'failed', nextAttemptAt: at(-60_000), url: null },
        ]),
      ]);
      await someoneWaitsForALock();
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const [redelivered] = await waiting;
    expect(redelivered).toBeUndefined();
    // What a retry job, the recovery sweep and a copy of the event would do next: nothing is written.
    expect(await repository.claimAttempt(id, 0, 3, 'job-1', 60_000)).toBe('made');
    await repository.settle(id, 0, 'dead', 'endpoint disabled');
    expect(await repository.appendRepeatAttempt({ ...firstAttemptRecord(eventId), delivery: { ...firstAttemptRecord(eventId).delivery, organisationId: 'org-retention' } })).toBeUndefined();
    expect((await repository.overdue(0, 1_000)).map((row) => row.id)).not.toContain(id);
    expect(await remaining([id])).toEqual({ deliveries: [], attempts: [] });
    expect(await dataSource.query(`SELECT 1 FROM dispatcher.delivery WHERE event_id = $1`, [eventId])).toEqual([]);
    // Asked for again, it is a 404 that says how long the log keeps deliveries.
    const log = new DeliveryLog(repository, {} as RetryQueue, config);
    expect(await log.redeliver(String(id))).toBeUndefined();
    const problem = (() => {
      try {
        return log.notFound();
      } catch (error) {
        return (error as ProblemException).problem;
      }
    })();
    expect(problem).toMatchObject({ status: 404, detail: expect.stringContaining(`${config.WEBHOOK_DELIVERY_RETENTION_DAYS} days`) });
  });

  it('pruned while redelivered by time, each delivery ends either gone or redelivered, never both', async () => {
    const ids = await insertDeliveries(Array.from({ length: 600 }, () => ({ status: 'succeeded' as const, updatedAt: at(90 * DAY_MS) })));
    const redeliverAll = async () => {
      const redelivered: number[] = [];
      for (let afterId = ids[0] - 1; ; ) {
        const rows = await repository.startRedeliveries(at(365 * DAY_MS), ['succeeded'], 'org-retention', afterId, 25);
        if (rows.length === 0) return redelivered;
        redelivered.push(...rows.map((row) => row.id));
        afterId = rows[rows.length - 1].id;
      }
    };
    const [pruned, redelivered] = await Promise.all([pruner([deliveryLog], { batchRows: 20 }).pruneClass(deliveryLog), redeliverAll()]);
    // A batch that met rows the redelivery held came back short and ended that run: the next run takes what is left.
    const prunedAfter = await pruner([deliveryLog]).pruneClass(deliveryLog);
    const left: Array<{ id: number; status: string; series: number }> = await dataSource.query(
      `SELECT id, status, series FROM dispatcher.delivery WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
    expect(left.map((row) => row.id)).toEqual([...redelivered].sort((a, b) => a - b));
    expect(left.every((row) => row.status === 'pending' && row.series === 1)).toBe(true);
    expect(pruned + prunedAfter + redelivered.length).toBe(ids.length);
  });

  it("reports each class's rows, the age of its oldest row and its period", async () => {
    await dataSource.query(`DELETE FROM dispatcher.delivery WHERE status IN ('succeeded', 'skipped')`);
    await insertDeliveries([{ status: 'succeeded', updatedAt: new Date(Date.now() - 10 * DAY_MS) }]);
    await dataSource.query(`ANALYZE dispatcher.delivery`);
    const observed = pruner(classes, {});
    observed.onApplicationBootstrap();
    try {
      const gauge = async (name: string) => {
        const values = (await metricsRegistry.getSingleMetric(name)?.get())?.values ?? [];
        return values.find((value) => value.labels.class === 'delivery-log')?.value;
      };
      expect(await gauge('retention_keep_seconds')).toBe(config.WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400);
      expect(Math.abs(((await gauge('retention_oldest_age_seconds')) ?? 0) - 10 * 86_400)).toBeLessThan(600);
      expect(await gauge('retention_table_rows')).toBeGreaterThan(0);
    } finally {
      await observed.onModuleDestroy();
    }
  });
});
