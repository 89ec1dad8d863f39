import { concurrentIndexMigration } from '@availability/service-core';

/**
 * The index the retention of the daily invitation counts reads, oldest day first (directoryRetention):
 * the primary key leads with the organisation, so without it every pruning batch scans the table.
 */
export const InvitationsSentDay1767300000000 = concurrentIndexMigration('InvitationsSentDay', 1767300000000, [
  { schema: 'directory', name: 'invitations_sent_day', on: 'directory.invitations_sent (day)' },
]);
