import { concurrentIndexMigration } from '@availability/service-core';

/** Idempotency-Keys by their first use, oldest first: what their retention reads (offersRetention). */
export const IdempotencyKeyCreated1767000000000 = concurrentIndexMigration('IdempotencyKeyCreated', 1767000000000, [
  { schema: 'offers', name: 'idempotency_key_created', on: 'offers.idempotency_key (created_at)' },
]);
