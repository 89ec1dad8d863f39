import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { migrateOffersApi } from '../src/migrate.js';
import { OFFERS_MIGRATIONS } from '../src/migrations/index.js';

describe('offers-api migrate entry', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('applies every migration of the service once, and again nothing', async () => {
    await migrateOffersApi(database.url);
    await migrateOffersApi(database.url);
    const applied = await queryDatabase<{ name: string }>(database.url, 'SELECT name FROM "offers".migrations ORDER BY timestamp');
    expect(applied.map((row) => row.name)).toEqual(OFFERS_MIGRATIONS.map((migration) => migration.name));
  });
});
