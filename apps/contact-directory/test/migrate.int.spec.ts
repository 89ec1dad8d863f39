import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { migrateContactDirectory } from '../src/migrate.js';
import { DIRECTORY_MIGRATIONS } from '../src/migrations/index.js';

describe('contact-directory migrate entry', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('applies every migration of the service once, and again nothing', async () => {
    await migrateContactDirectory(database.url);
    await migrateContactDirectory(database.url);
    const applied = await queryDatabase<{ name: string }>(database.url, 'SELECT name FROM "directory".migrations ORDER BY timestamp');
    expect(applied.map((row) => row.name)).toEqual(DIRECTORY_MIGRATIONS.map((migration) => migration.name));
  });
});
