import { describe, expect, it } from '@jest/globals';
import { migrateTogetherOnFreshDatabase, migrateTwiceOnFreshDatabase } from '@availability/testing';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

describe('webhook-dispatcher migrate entry', () => {
  it('applies every migration of the service once, and again nothing', async () => {
    const { applied, expected } = await migrateTwiceOnFreshDatabase(SERVICE_MIGRATIONS);
    expect(applied).toEqual(expected);
  });

  it('applies them once when instances start together, an index built concurrently among them', async () => {
    // The instance waiting for the migration lock must hold no snapshot: CREATE INDEX CONCURRENTLY waits for every older one.
    const { applied, expected } = await migrateTogetherOnFreshDatabase(SERVICE_MIGRATIONS, 3);
    expect(applied).toEqual(expected);
  });
});
