import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, loadConfig, migrate, Pruner } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { OffersApiConfig } from '../src/config/offers-api.config.js';
import { OFFERS_MIGRATIONS } from '../src/migrations/index.js';
import { OFFERS_SCHEMA, OffersRepository } from '../src/offers/offers.repository.js';
import { IDEMPOTENCY_KEY_HOURS, offersRetention } from '../src/retention/offers-retention.js';

/** offers-api's retention on a real database: Idempotency-Keys a day after their first use, published outbox rows after theirs. */
let database: TestDatabase;
let dataSource: DataSource;

const NOW = Date.now();
const at = (msAgo: number) => new Date(NOW - msAgo);
const config = loadConfig(OffersApiConfig, {});

function prune(): Promise<Record<string, number>> {
  return new Pruner(dataSource, { classes: offersRetention(config), intervalMs: 3_600_000, batchRows: 500, runMs: 60_000, now: () => NOW }).pruneOnce();
}

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = await createDataSource({ url: database.url, schema: OFFERS_SCHEMA, migrations: OFFERS_MIGRATIONS, poolSize: 4, applicationName: 'retention-test' }).initialize();
  await migrate(dataSource, OFFERS_SCHEMA);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe("offers-api's retention on PostgreSQL", () => {
  it('forgets an Idempotency-Key once it is older than a day; a younger one still replays its offer', async () => {
    const organisationId = randomUUID();
    const day = IDEMPOTENCY_KEY_HOURS * 3_600_000;
    const keys = [at(day + 1), at(day), at(60_000)].map((createdAt, index) => ({ key: `key-${index}`, createdAt, offerId: randomUUID() }));
    for (const key of keys) {
      await dataSource.query(`INSERT INTO offers.idempotency_key (organisation_id, key, request_hash, offer_id, created_at) VALUES ($1, $2, $3, $4, $5)`, [
        organisationId,
        key.key,
        'a'.repeat(64),
        key.offerId,
        key.createdAt,
      ]);
    }
    expect(await prune()).toMatchObject({ 'idempotency-keys': 1 });
    const repository = new OffersRepository(dataSource);
    expect(await repository.findIdempotencyKey(organisationId, 'key-0')).toBeUndefined();
    expect(await repository.findIdempotencyKey(organisationId, 'key-1')).toMatchObject({ offerId: keys[1].offerId });
    expect(await repository.findIdempotencyKey(organisationId, 'key-2')).toMatchObject({ offerId: keys[2].offerId });
  });

  it('removes published outbox rows past their hours; an unpublished row stays, however old', async () => {
    const hours = config.OUTBOX_RETENTION_HOURS * 3_600_000;
    await dataSource.query(
      `INSERT INTO offers.outbox (event_id, subject, payload, created_at, published_at) VALUES
         (gen_random_uuid(), 'a', '{}', $1, $1), (gen_random_uuid(), 'b', '{}', $2, $2), (gen_random_uuid(), 'c', '{}', $1, NULL)`,
      [at(hours + 1), at(hours)],
    );
    expect(await prune()).toMatchObject({ outbox: 1 });
    expect(await dataSource.query(`SELECT subject FROM offers.outbox ORDER BY subject`)).toEqual([{ subject: 'b' }, { subject: 'c' }]);
  });
});
