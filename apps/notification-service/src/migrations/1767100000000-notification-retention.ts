import { concurrentIndexMigration } from '@availability/service-core';

/**
 * The indexes the notification logs' retention reads, oldest first (notificationRetention): worker
 * notifications and push rows by when they were written, answers by when their digest went. Answers
 * never e-mailed are read through the existing index of waiting answers (recorded_at).
 */
export const NotificationRetention1767100000000 = concurrentIndexMigration('NotificationRetention', 1767100000000, [
  { schema: 'notifications', name: 'worker_notification_created', on: 'notifications.worker_notification (created_at)' },
  { schema: 'notifications', name: 'push_delivery_created', on: 'notifications.push_delivery (created_at)' },
  { schema: 'notifications', name: 'offer_answer_emailed', on: 'notifications.offer_answer (emailed_at) WHERE emailed_at IS NOT NULL' },
]);
