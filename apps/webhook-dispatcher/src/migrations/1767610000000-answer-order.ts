import { concurrentIndexMigration } from '@availability/service-core';

/**
 * A worker's answers about one offer to one organisation, by sequence: whether a newer answer is in
 * the log is one probe when an older one is about to be attempted (ANSWER_SUPERSEDED in the
 * deliveries repository, whose expressions these are). And the superseded deliveries by their last
 * change, which their retention class reads (dispatcherRetention). Built without blocking writes.
 */
export const AnswerOrder1767610000000 = concurrentIndexMigration('AnswerOrder', 1767610000000, [
  {
    schema: 'dispatcher',
    name: 'delivery_answer_order',
    on: `dispatcher.delivery (organisation_id, (substring(body from '"offerId":"([0-9a-f-]{36})"')), (substring(body from '"workerId":"([0-9a-f-]{36})"')), sequence) WHERE sequence IS NOT NULL`,
  },
  { schema: 'dispatcher', name: 'delivery_superseded', on: `dispatcher.delivery (updated_at) WHERE status = 'superseded'` },
]);
