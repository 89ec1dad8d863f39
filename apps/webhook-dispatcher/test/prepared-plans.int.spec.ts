import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrateAlone } from '@availability/service-core';
import { createTestDatabase, tablesScannedByGenericPlan, type TestDatabase } from '@availability/testing';
import { DELIVERY_STATEMENTS } from '../src/delivery/deliveries.repository.js';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

// A connection prepares these when the service starts, often on an empty delivery log; the plan it
// keeps must find rows by index, or every event reads the whole log once it has grown.
describe('the dispatcher’s prepared statements', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateAlone(database.url, SERVICE_MIGRATIONS);
  });
  afterAll(() => database.drop());

  it.each(DELIVERY_STATEMENTS.map((statement) => ({ name: statement.name, statement })))('$name reads no table whole, planned on empty tables', async ({ statement }) => {
    expect(await tablesScannedByGenericPlan(database.url, statement)).toEqual([]);
  });
});
