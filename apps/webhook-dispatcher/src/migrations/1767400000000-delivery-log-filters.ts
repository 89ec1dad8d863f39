import { concurrentIndexMigration } from '@availability/service-core';

/**
 * An organisation's deliveries of one event type, and of one status, newest first, and by the time
 * they were recorded: the delivery log filtered by any of them reads only its page, however rare the
 * type or status, or far back the time, among a year of deliveries (by event, it reads its unique key). Built without blocking writes: the log may hold months of rows
 * when this runs.
 */
export const DeliveryLogFilters1767400000000 = concurrentIndexMigration('DeliveryLogFilters', 1767400000000, [
  { schema: 'dispatcher', name: 'delivery_organisation_subject', on: `dispatcher.delivery (organisation_id, event_subject, id DESC)` },
  { schema: 'dispatcher', name: 'delivery_organisation_status', on: `dispatcher.delivery (organisation_id, status, id DESC)` },
  // Before a time: the last deliveries recorded before it, and the highest id among them (LIST_DELIVERIES).
  { schema: 'dispatcher', name: 'delivery_organisation_created', on: `dispatcher.delivery (organisation_id, created_at, id)` },
]);
