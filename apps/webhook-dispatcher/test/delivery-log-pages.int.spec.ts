import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrateAlone } from '@availability/service-core';
import { createTestDatabase, pagesRead, queryDatabase, type TestDatabase } from '@availability/testing';
import { type DeliveryFilter, LIST_DELIVERIES, listDeliveriesParams } from '../src/delivery/deliveries.repository.js';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

/**
 * The delivery log's pages on a log grown to a year of one organisation's deliveries: each filter the
 * portal and the operator API offer reads the page's rows through an index, not the log's history.
 * Counted in pages read (shared buffers), which do not depend on the machine's speed.
 */
const ORG = 'org-with-a-year-of-deliveries';
const OTHER = 'org-next-door';
const DELIVERIES = 60_000;
/** A page of 50 through an index reads a few dozen pages; the log itself is thousands. */
const PAGE_BUDGET = 200;
let database: TestDatabase;
let tablePages: number;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAlone(database.url, SERVICE_MIGRATIONS);
  // Answers every few minutes over a year; one in a thousand dead, one in two thousand skipped, one in five hundred a completion,
  // and a neighbour's deliveries among them.
  await queryDatabase(
    database.url,
    `INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, attempts, created_at, updated_at)
     SELECT md5('e' || i)::uuid, CASE WHEN i % 7 = 0 THEN $2 ELSE $1 END,
            CASE WHEN i % 500 = 0 THEN 'offers.completed' ELSE 'offers.response.recorded' END,
            md5('e' || i) || ':' || $1, 'POST', '/offer/response', repeat('x', 400), 'https://integrator.example/offer/response',
            CASE WHEN i % 1000 = 0 THEN 'dead' WHEN i % 2000 = 1 THEN 'skipped' ELSE 'succeeded' END, 1, at, at
     FROM generate_series(1, $3::int) i, LATERAL (SELECT now() - interval '365 days' * (1 - i::float8 / $3::int) AS at) a`,
    [ORG, OTHER, DELIVERIES],
  );
  await queryDatabase(database.url, 'VACUUM ANALYZE dispatcher.delivery');
  [{ pages: tablePages }] = await queryDatabase<{ pages: number }>(database.url, `SELECT relpages AS pages FROM pg_class WHERE oid = 'dispatcher.delivery'::regclass`);
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

const page = (filter: Omit<DeliveryFilter, 'limit'>) => pagesRead(database.url, LIST_DELIVERIES, listDeliveriesParams({ limit: 50, ...filter }));

describe('the delivery log’s pages on a year of deliveries', () => {
  it('is larger than any page budget (else the figures below would say nothing)', () => {
    expect(tablePages).toBeGreaterThan(PAGE_BUDGET * 10);
  });

  it.each([
    ['the first page', {}],
    ['a later page', { before: Math.round(DELIVERIES / 2) }],
    ['dead letters', { status: 'dead' as const }],
    ['skipped, rare', { status: 'skipped' as const }],
    ['one event type, rare', { eventSubject: 'offers.completed' }],
    ['one event type, rare, a later page', { eventSubject: 'offers.completed', before: Math.round(DELIVERIES / 2) }],
    ['one event', { eventId: '00000000-0000-0000-0000-000000000000' }],
    ['one webhook id', { eventId: '00000000-0000-0000-0000-000000000000', webhookId: `00000000-0000-0000-0000-000000000000:${ORG}` }],
    ['one offer, none of the year’s', { offerId: '00000000-0000-0000-0000-000000000000' }],
    ['one worker, none of the year’s', { workerId: '00000000-0000-0000-0000-000000000000' }],
    ['one worker, a later page', { workerId: '00000000-0000-0000-0000-000000000000', before: Math.round(DELIVERIES / 2) }],
    ['since yesterday', { from: new Date(Date.now() - 86_400_000) }],
    ['before a day last winter', { to: new Date(Date.now() - 200 * 86_400_000) }],
    ['within a week last winter', { from: new Date(Date.now() - 207 * 86_400_000), to: new Date(Date.now() - 200 * 86_400_000) }],
  ])('%s reads its rows through an index', async (_name, filter) => {
    const read = await page({ organisationId: ORG, ...filter });
    expect(read.seqScans).toEqual([]);
    expect(read.pages).toBeLessThan(PAGE_BUDGET);
  });

  it('before a time: the page holds the newest deliveries recorded before it, as a scan of the whole log finds them', async () => {
    const to = new Date(Date.now() - 200 * 86_400_000);
    const listed = await queryDatabase<{ id: string }>(database.url, LIST_DELIVERIES, listDeliveriesParams({ organisationId: ORG, to, limit: 50 }));
    const expected = await queryDatabase<{ id: string }>(
      database.url,
      'SELECT id FROM dispatcher.delivery WHERE organisation_id = $1 AND created_at < $2 ORDER BY id DESC LIMIT 50',
      [ORG, to],
    );
    expect(listed.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    expect(listed).toHaveLength(50);
  });
});
