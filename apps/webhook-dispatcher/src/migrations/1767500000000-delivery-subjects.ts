import { concurrentIndexMigration } from '@availability/service-core';

/**
 * An organisation's deliveries about one offer, and about one worker, newest first: the delivery log
 * searched by either reads only its page. The expressions are the log's (OFFER_OF, WORKER_OF in the
 * deliveries repository), read from the bytes each delivery sends. Built without blocking writes.
 */
export const DeliverySubjects1767500000000 = concurrentIndexMigration('DeliverySubjects', 1767500000000, [
  {
    schema: 'dispatcher',
    name: 'delivery_organisation_offer',
    on: `dispatcher.delivery (organisation_id, (substring(body from '"offerId":"([0-9a-f-]{36})"')), id DESC)`,
  },
  {
    schema: 'dispatcher',
    name: 'delivery_organisation_worker',
    on: `dispatcher.delivery (organisation_id, (COALESCE(substring(body from '"workerId":"([0-9a-f-]{36})"'), substring(path from '^/contact/new/([0-9a-f-]{36})$'))), id DESC)`,
  },
]);
