import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrateAlone } from '@availability/service-core';
import { createTestDatabase, tablesScannedByGenericPlan, type TestDatabase } from '@availability/testing';
import { OFFER_STATEMENTS } from '../src/offers/offers.repository.js';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

// A connection prepares these when the service starts, often on empty tables; the plan it
// keeps must find rows by index, or every request reads a whole table once it has grown.
describe('offers-api’s prepared statements', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateAlone(database.url, SERVICE_MIGRATIONS);
  });
  afterAll(() => database.drop());

  it.each(OFFER_STATEMENTS.map((statement) => ({ name: statement.name, statement })))('$name reads no table whole, planned on empty tables', async ({ statement }) => {
    expect(await tablesScannedByGenericPlan(database.url, statement)).toEqual([]);
  });
});
