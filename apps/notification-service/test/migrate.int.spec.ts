import { describe, expect, it } from '@jest/globals';
import { migrateTwiceOnFreshDatabase } from '@availability/testing';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

describe('notification-service migrate entry', () => {
  it('applies every migration of the service once, and again nothing', async () => {
    const { applied, expected } = await migrateTwiceOnFreshDatabase(SERVICE_MIGRATIONS);
    expect(applied).toEqual(expected);
  });
});
