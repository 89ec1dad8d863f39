import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { migrateWebhookDispatcher } from '../src/migrate.js';
import { DISPATCHER_MIGRATIONS } from '../src/migrations/index.js';

describe('webhook-dispatcher migrate entry', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('applies every migration of the service once, and again nothing', async () => {
    await migrateWebhookDispatcher(database.url);
    await migrateWebhookDispatcher(database.url);
    const applied = await queryDatabase<{ name: string }>(database.url, 'SELECT name FROM "dispatcher".migrations ORDER BY timestamp');
    expect(applied.map((row) => row.name)).toEqual(DISPATCHER_MIGRATIONS.map((migration) => migration.name));
  });
});
