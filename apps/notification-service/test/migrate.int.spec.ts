import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { migrateNotificationService } from '../src/migrate.js';
import { NOTIFICATIONS_MIGRATIONS } from '../src/migrations/index.js';

describe('notification-service migrate entry', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('applies every migration of the service once, and again nothing', async () => {
    await migrateNotificationService(database.url);
    await migrateNotificationService(database.url);
    const applied = await queryDatabase<{ name: string }>(database.url, 'SELECT name FROM "notifications".migrations ORDER BY timestamp');
    expect(applied.map((row) => row.name)).toEqual(NOTIFICATIONS_MIGRATIONS.map((migration) => migration.name));
  });
});
