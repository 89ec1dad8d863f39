import { parkedEventsHandledMigration, parkedEventsMigration } from '@availability/messaging';
import { NOTIFICATIONS_SCHEMA } from '../devices/devices.repository.js';
import { CreateNotifications1764000000000 } from './1764000000000-create-notifications.js';
import { WebPushSubscriptions1764700000000 } from './1764700000000-web-push-subscriptions.js';
import { AnswerRecordedAt1765000000000 } from './1765000000000-answer-recorded-at.js';
import { PendingFanOuts1766000000000 } from './1766000000000-pending-fan-outs.js';
import { PendingEmails1766100000000 } from './1766100000000-pending-emails.js';
import { PushDeliveryCreated1767000000000 } from './1767000000000-push-delivery-created.js';
import { NotificationRetention1767100000000 } from './1767100000000-notification-retention.js';
import { PendingEmailQueuedJob1767300000000 } from './1767300000000-pending-email-queued-job.js';
import { OfferStages1767600000000 } from './1767600000000-offer-stages.js';

/** notification-service's migrations, in order: applied at start-up and by `migrate.js`. */
export const NOTIFICATIONS_MIGRATIONS = [
  CreateNotifications1764000000000,
  parkedEventsMigration(NOTIFICATIONS_SCHEMA, 1764600000000),
  WebPushSubscriptions1764700000000,
  AnswerRecordedAt1765000000000,
  PendingFanOuts1766000000000,
  PendingEmails1766100000000,
  PushDeliveryCreated1767000000000,
  NotificationRetention1767100000000,
  parkedEventsHandledMigration(NOTIFICATIONS_SCHEMA, 1767200000000),
  PendingEmailQueuedJob1767300000000,
  OfferStages1767600000000,
];
