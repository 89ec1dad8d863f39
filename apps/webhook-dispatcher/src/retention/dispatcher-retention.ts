import { outboxRetention, parkedEventsRetention } from '@availability/messaging';
import { DAY_MS, type RetentionClass } from '@availability/service-core';
import type { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DISPATCHER_SCHEMA } from '../delivery/deliveries.repository.js';

/** The statuses of a delivery with nothing left to do; `pending` and `failed` (retrying, held, claimed) never go. */
export const FINISHED_STATUSES = `status IN ('succeeded', 'skipped')`;

/** An answer not sent because a newer one replaced it: finished, kept as long as a succeeded delivery. */
export const SUPERSEDED_STATUS = `status = 'superseded'`;

/**
 * What webhook-dispatcher prunes. A delivery goes with its attempts (ON DELETE CASCADE) once it is
 * finished and unchanged for WEBHOOK_DELIVERY_RETENTION_DAYS: a redelivery makes it pending again
 * (so it stays), and a retry, a release or the recovery sweep only ever works on pending or failed
 * deliveries. Dead letters stay until redelivered unless WEBHOOK_DEAD_LETTER_RETENTION_DAYS bounds them.
 * Its other tables are kept: `endpoint` holds one row per organisation (its health).
 */
export function dispatcherRetention(config: WebhookDispatcherConfig): RetentionClass[] {
  const classes: RetentionClass[] = [
    { name: 'delivery-log', table: `${DISPATCHER_SCHEMA}.delivery`, time: 'updated_at', where: FINISHED_STATUSES, keepMs: config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS },
    // A class of its own, read through its own index (delivery_superseded), so the delivery log's index stays as it is.
    { name: 'superseded-answers', table: `${DISPATCHER_SCHEMA}.delivery`, time: 'updated_at', where: SUPERSEDED_STATUS, keepMs: config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS },
  ];
  if (config.WEBHOOK_DEAD_LETTER_RETENTION_DAYS > 0) {
    classes.push({ name: 'dead-letters', table: `${DISPATCHER_SCHEMA}.delivery`, time: 'updated_at', where: `status = 'dead'`, keepMs: config.WEBHOOK_DEAD_LETTER_RETENTION_DAYS * DAY_MS });
  }
  classes.push(outboxRetention(DISPATCHER_SCHEMA, config.OUTBOX_RETENTION_HOURS), parkedEventsRetention(DISPATCHER_SCHEMA, config.PARKED_EVENT_RETENTION_DAYS));
  return classes;
}
