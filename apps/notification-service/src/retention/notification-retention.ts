import { parkedEventsRetention } from '@availability/messaging';
import { DAY_MS, type RetentionClass } from '@availability/service-core';
import type { NotificationServiceConfig } from '../config/notification-service.config.js';
import { NOTIFICATIONS_SCHEMA } from '../devices/devices.repository.js';

/**
 * A row of an event whose fan-out is still pending: the push recovery sweep reads the event's worker
 * notifications and push rows to find what is unfinished, so neither goes while it may (a row gone
 * would read as a push never made, and be made again).
 */
function fanOutFinished(table: string): string {
  return `NOT EXISTS (SELECT 1 FROM ${NOTIFICATIONS_SCHEMA}.pending_fan_out f WHERE f.event_id = ${table}.event_id)`;
}

/**
 * What notification-service prunes: what each worker was told, the stage of each offer pushed to
 * each worker (kept as long as what they were told), the push log, answers once their digest went
 * (or given up), and handled parked events. Devices and Web Push subscriptions are the workers' own (kept until removed, or gone at the push service); the offer read model is kept as
 * offers are; pending fan-outs and e-mails are work in progress, deleted as it finishes.
 */
export function notificationRetention(config: NotificationServiceConfig): RetentionClass[] {
  const notifications = `${NOTIFICATIONS_SCHEMA}.worker_notification`;
  const pushes = `${NOTIFICATIONS_SCHEMA}.push_delivery`;
  const stages = `${NOTIFICATIONS_SCHEMA}.offer_stage`;
  const answers = `${NOTIFICATIONS_SCHEMA}.offer_answer`;
  const answerMs = config.ANSWER_RETENTION_DAYS * DAY_MS;
  return [
    { name: 'worker-notifications', table: notifications, time: 'created_at', where: fanOutFinished(notifications), keepMs: config.WORKER_NOTIFICATION_RETENTION_DAYS * DAY_MS },
    { name: 'offer-stages', table: stages, time: 'updated_at', where: fanOutFinished(stages), keepMs: config.WORKER_NOTIFICATION_RETENTION_DAYS * DAY_MS },
    { name: 'push-log', table: pushes, time: 'created_at', where: fanOutFinished(pushes), keepMs: config.PUSH_LOG_RETENTION_DAYS * DAY_MS },
    { name: 'answers-emailed', table: answers, time: 'emailed_at', where: 'emailed_at IS NOT NULL', keepMs: answerMs },
    // A digest is looked for a few windows after its answers (DigestSweep): one still waiting this long was given up.
    { name: 'answers-unsent', table: answers, time: 'recorded_at', where: 'emailed_at IS NULL', keepMs: answerMs },
    parkedEventsRetention(NOTIFICATIONS_SCHEMA, config.PARKED_EVENT_RETENTION_DAYS),
  ];
}
