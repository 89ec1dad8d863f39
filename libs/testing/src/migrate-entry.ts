import { migrateAlone, type ServiceMigrations } from '@availability/service-core';
import { createTestDatabase, queryDatabase } from './test-database.js';

/**
 * Runs a service's migrate entry twice on a fresh database, which is then dropped: `applied` is what
 * its migrations table holds, `expected` every migration of the service once.
 */
export async function migrateTwiceOnFreshDatabase(set: ServiceMigrations): Promise<{ applied: string[]; expected: string[] }> {
  const database = await createTestDatabase();
  try {
    await migrateAlone(database.url, set);
    await migrateAlone(database.url, set);
    const applied = await queryDatabase<{ name: string }>(database.url, `SELECT name FROM "${set.schema}".migrations ORDER BY timestamp`);
    return { applied: applied.map((row) => row.name), expected: set.migrations.map((migration) => migration.name) };
  } finally {
    await database.drop();
  }
}

/**
 * Runs a service's migrate entry `instances` times at once on a fresh database (instances of a
 * deployment starting together), which is then dropped: what its migrations table holds, and every
 * migration of the service once.
 */
export async function migrateTogetherOnFreshDatabase(set: ServiceMigrations, instances = 2): Promise<{ applied: string[]; expected: string[] }> {
  const database = await createTestDatabase();
  try {
    await Promise.all(Array.from({ length: instances }, () => migrateAlone(database.url, set)));
    const applied = await queryDatabase<{ name: string }>(database.url, `SELECT name FROM "${set.schema}".migrations ORDER BY timestamp`);
    return { applied: applied.map((row) => row.name), expected: set.migrations.map((migration) => migration.name) };
  } finally {
    await database.drop();
  }
}
