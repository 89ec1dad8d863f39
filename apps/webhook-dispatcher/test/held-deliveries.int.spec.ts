import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { DeliveriesRepository, DISPATCHER_SCHEMA, HELD_ORGANISATIONS } from '../src/delivery/deliveries.repository.js';
import { DISPATCHER_MIGRATIONS } from '../src/migrations/index.js';

/** Held deliveries in the delivery log on a real database: what the recovery sweep reads to find them. */
let database: TestDatabase;
let dataSource: DataSource;
let repository: DeliveriesRepository;

const HELD_PER_ENDPOINT = 3_000;
const ENDPOINTS = ['org-held-a', 'org-held-b', 'org-held-c'];

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = createDataSource({ url: database.url, schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS, poolSize: 2, applicationName: 'held-deliveries-test' });
  await dataSource.initialize();
  await migrate(dataSource, DISPATCHER_SCHEMA);
  repository = new DeliveriesRepository(dataSource);
  // Endpoints down for a while: thousands of deliveries held each, beside deliveries of others not held.
  await dataSource.query(
    `INSERT INTO ${DISPATCHER_SCHEMA}.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, status, held_at)
     SELECT gen_random_uuid(), o.organisation_id, 'offers.response.recorded', 'msg_' || n, 'POST', '/offer/response', 'pending', now()
     FROM unnest($1::text[]) AS o(organisation_id), generate_series(1, $2::int) AS n`,
    [ENDPOINTS, HELD_PER_ENDPOINT],
  );
  await dataSource.query(
    `INSERT INTO ${DISPATCHER_SCHEMA}.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, status)
     SELECT gen_random_uuid(), 'org-answering-' || (n % 7), 'offers.response.recorded', 'msg_' || n, 'POST', '/offer/response', 'succeeded'
     FROM generate_series(1, 2000) AS n`,
  );
  // As autovacuum would have: the planner knows the table.
  await dataSource.query(`ANALYZE ${DISPATCHER_SCHEMA}.delivery`);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Rows the statement's scans read, over all their loops (EXPLAIN ANALYZE). */
async function rowsScanned(sql: string): Promise<number> {
  const [{ 'QUERY PLAN': [{ Plan }] }]: Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }> = await dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
  const walk = (node: PlanNode): number =>
    (node['Node Type'].endsWith('Scan') && node['Node Type'] !== 'CTE Scan' && node['Node Type'] !== 'WorkTable Scan' ? node['Actual Rows'] * node['Actual Loops'] : 0) +
    (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(Plan);
}

describe('held deliveries on PostgreSQL', () => {
  it('names every endpoint with deliveries held, once each', async () => {
    expect((await repository.heldOrganisations()).sort()).toEqual(ENDPOINTS);
  });

  it('finds those endpoints with a few index reads each, however many deliveries they hold', async () => {
    // The sweep asks every few seconds: reading every held delivery would grow with the outage.
    expect(await rowsScanned(HELD_ORGANISATIONS)).toBeLessThanOrEqual(3 * ENDPOINTS.length + 1);
  });

  it('leaves out an endpoint once none of its deliveries is held', async () => {
    const rows = await repository.heldBatch('org-held-b', HELD_PER_ENDPOINT);
    await repository.endHold(rows);
    expect((await repository.heldOrganisations()).sort()).toEqual(['org-held-a', 'org-held-c']);
  });

  it('ends only the holds a release read: a delivery held again meanwhile stays held', async () => {
    // A release reads the held deliveries and queues their jobs; one of those jobs can run before the
    // hold is ended, meet a circuit still open (in its process) and hold its delivery again.
    const [first, second] = await repository.heldBatch('org-held-c', 2);
    await new Promise((resolve) => setTimeout(resolve, 2));
    await repository.hold([{ deliveryId: second.id, series: second.series }]);
    await repository.endHold([first, second]);
    const [row] = await dataSource.query(`SELECT held_at IS NOT NULL AS held FROM ${DISPATCHER_SCHEMA}.delivery WHERE id = $1`, [first.id]);
    const [again] = await dataSource.query(`SELECT held_at IS NOT NULL AS held FROM ${DISPATCHER_SCHEMA}.delivery WHERE id = $1`, [second.id]);
    expect(row.held).toBe(false);
    expect(again.held).toBe(true);
  });

  it('starts a new hold when an attempt of a held delivery fails, which the release that read the old one leaves', async () => {
    // A trial call (or a released attempt that ran before its release ended the hold) fails: the
    // delivery is held anew, so the release that read it, ending the holds it read, does not leave it
    // neither held nor queued (its own job for it finds the attempt made).
    const [row] = await repository.heldBatch('org-held-a', 1);
    await new Promise((resolve) => setTimeout(resolve, 2));
    await repository.recordAttempts([failedAttempt(row.id, row.series)]);
    await repository.endHold([row]);
    const [after] = await dataSource.query(`SELECT held_at IS NOT NULL AS held, status FROM ${DISPATCHER_SCHEMA}.delivery WHERE id = $1`, [row.id]);
    expect(after).toEqual({ held: true, status: 'failed' });
  });
});

function failedAttempt(deliveryId: number, series: number) {
  return {
    deliveryId,
    series,
    startedAt: new Date(),
    durationMs: 5,
    statusCode: 503,
    errorKind: 'http',
    errorMessage: 'answered 503',
    responseExcerpt: null,
    status: 'failed' as const,
    nextAttemptAt: new Date(Date.now() + 60_000),
    url: null,
  };
}

describe('attempt claims on PostgreSQL', () => {
  async function newDelivery(organisationId: string): Promise<{ id: number; series: number }> {
    const [row] = await dataSource.query(
      `INSERT INTO ${DISPATCHER_SCHEMA}.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, status)
       VALUES (gen_random_uuid(), $1, 'offers.response.recorded', 'msg_claim', 'POST', '/offer/response', 'pending') RETURNING id, series`,
      [organisationId],
    );
    return row;
  }

  it('gives an attempt to one claimant at a time, and never once it is made', async () => {
    const delivery = await newDelivery('org-claims');
    const claims = await Promise.all(['job-a', 'job-b', 'job-c'].map((job) => repository.claimAttempt(delivery.id, delivery.series, 1, job, 30_000)));
    expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c === 'taken')).toHaveLength(2);
    const holder = ['job-a', 'job-b', 'job-c'][claims.indexOf('claimed')];
    // The same job run again (its process died mid-call) takes its attempt back.
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, holder, 30_000)).toBe('claimed');
    await repository.recordAttempts([failedAttempt(delivery.id, delivery.series)]);
    // Made: no job makes attempt 1 again, the claimant included; attempt 2 is free.
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, holder, 30_000)).toBe('made');
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, 'job-z', 30_000)).toBe('made');
    expect(await repository.claimAttempt(delivery.id, delivery.series, 2, 'job-z', 30_000)).toBe('claimed');
  });

  it('lets another claimant take over a claim older than the stale time', async () => {
    const delivery = await newDelivery('org-claims');
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, 'job-dead', 30_000)).toBe('claimed');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, 'job-live', 30_000)).toBe('taken');
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, 'job-live', 10)).toBe('claimed');
  });

  it('has nothing to claim for a finished delivery, or an attempt of another series', async () => {
    const delivery = await newDelivery('org-claims');
    expect(await repository.claimAttempt(delivery.id, delivery.series + 1, 1, 'job-a', 30_000)).toBe('made');
    await repository.settle(delivery.id, delivery.series, 'dead', 'endpoint disabled');
    expect(await repository.claimAttempt(delivery.id, delivery.series, 1, 'job-a', 30_000)).toBe('made');
    expect(await repository.claimAttempt(Number.MAX_SAFE_INTEGER, 0, 1, 'job-a', 30_000)).toBe('made');
  });
});
