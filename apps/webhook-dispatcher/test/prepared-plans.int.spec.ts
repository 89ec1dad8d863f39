import { describe, expect, it } from '@jest/globals';
import { statementsReadingTablesWhole } from '@availability/testing';
import { DELIVERY_STATEMENTS } from '../src/delivery/deliveries.repository.js';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

describe('the dispatcher’s prepared statements', () => {
  // A connection prepares these when the service starts, often on an empty delivery log; the plan it
  // keeps must find rows by key, or every event reads the whole log once it has grown.
  it('read no table whole, planned on empty tables', async () => {
    expect(await statementsReadingTablesWhole(SERVICE_MIGRATIONS, DELIVERY_STATEMENTS)).toEqual({});
  });
});
