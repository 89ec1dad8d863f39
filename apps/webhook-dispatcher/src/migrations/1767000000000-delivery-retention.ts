import { concurrentIndexMigration } from '@availability/service-core';

/**
 * The finished deliveries (succeeded or skipped) by their last change, oldest first: what the
 * delivery log's retention reads (dispatcherRetention). Dead letters are read through the existing
 * index of unfinished deliveries, (status, updated_at) of failed and dead ones. Built without
 * blocking writes: the log may hold months of rows when this runs.
 */
export const DeliveryRetention1767000000000 = concurrentIndexMigration('DeliveryRetention', 1767000000000, [
  { schema: 'dispatcher', name: 'delivery_finished', on: `dispatcher.delivery (updated_at) WHERE status IN ('succeeded', 'skipped')` },
]);
