import { describe, expect, it } from '@jest/globals';
import { statementsReadingTablesWhole } from '@availability/testing';
import { OFFER_STATEMENTS } from '../src/offers/offers.repository.js';
import { SERVICE_MIGRATIONS } from '../src/migrate.js';

describe('offers-api’s prepared statements', () => {
  // A connection prepares these when the service starts, often on empty tables; the plan it
  // keeps must find rows by key, or every request reads a whole table once it has grown.
  it('read no table whole, planned on empty tables', async () => {
    expect(await statementsReadingTablesWhole(SERVICE_MIGRATIONS, OFFER_STATEMENTS)).toEqual({});
  });
});
