import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PushTarget } from './fan-out.js';
import type { PendingFanOut, UnfinishedPush } from './push-recovery.js';
import type { PushKind, PushPlatform } from './push-transport.js';

export type DeliveryStatus = 'sending' | 'sent' | 'retrying' | 'failed' | 'token_removed' | 'superseded';

export interface DeliveryRecord {
  eventId: string;
  workerId: string;
  deviceId: string;
  kind: PushKind;
  offerId: string;
  status: DeliveryStatus;
  errorCode: string | null;
  messageId: string | null;
}

export interface PendingDevice {
  /** A device's id, or a Web Push subscription's. */
  deviceId: string;
  workerId: string;
  /** The FCM token, or the subscription's endpoint. */
  token: string;
  platform: PushPlatform;
  /** Web Push subscriptions only. */
  p256dh: string | null;
  auth: string | null;
}

export interface WorkerNotificationRow {
  id: number;
  eventId: string;
  kind: PushKind;
  offerId: string;
  organisationId: string;
  title: string;
  body: string;
  createdAt: Date;
}

/** The notification log: what each worker was told, and each push to each device. */
@Injectable()
export class PushRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * What each worker was told, whether or not they have a device: once per (event, worker). The event
   * is recorded as a pending fan-out in the same statement, so the push recovery sweep can queue
   * again any of its pushes whose job Redis loses.
   */
  async recordWorkerNotifications(
    event: { eventId: string; organisationId: string; offerId: string; title: string },
    rows: Array<{ workerId: string; kind: PushKind; title: string; body: string }>,
  ): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `WITH fan_out AS (
         INSERT INTO notifications.pending_fan_out (event_id, offer_id, organisation_id, offer_title)
         VALUES ($1, $3, $2, $8) ON CONFLICT (event_id) DO NOTHING
       )
       INSERT INTO notifications.worker_notification (event_id, worker_id, organisation_id, kind, offer_id, title, body)
       SELECT $1, r.worker_id, $2, r.kind, $3, r.title, r.body
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS r(worker_id, kind, title, body)
       ON CONFLICT (event_id, worker_id) DO NOTHING`,
      [event.eventId, event.organisationId, event.offerId, rows.map((r) => r.workerId), rows.map((r) => r.kind), rows.map((r) => r.title), rows.map((r) => r.body), event.title],
    );
  }

  async workerNotifications(workerId: string, limit: number, before?: number): Promise<WorkerNotificationRow[]> {
    return this.dataSource.query(
      `SELECT id, event_id AS "eventId", kind, offer_id AS "offerId", organisation_id AS "organisationId", title, body, created_at AS "createdAt"
       FROM notifications.worker_notification
       WHERE worker_id = $1 AND ($2::bigint IS NULL OR id < $2)
       ORDER BY id DESC LIMIT $3`,
      [workerId, before ?? null, limit],
    );
  }

  /**
   * Claims the job's devices for this event and returns the ones to send to now: devices that still
   * belong to the same worker and have no delivery row yet, or one that is `retrying`, or one left
   * `sending` by an earlier attempt of this same job (it died mid-send), or one left `sending` by any
   * job before `abandonedBefore` (that job is gone: the recovery sweep queued this one). The claim is one atomic
   * upsert on the unique (event_id, device_id), so two jobs never send one event to one device.
   * Web Push subscriptions are claimed the same way: their ids share device_id with devices.
   */
  async claimDevices(jobId: string, event: { eventId: string; offerId: string }, targets: PushTarget[], abandonedBefore: Date): Promise<PendingDevice[]> {
    if (targets.length === 0) return [];
    return this.dataSource.query(
      `WITH targets AS (
         SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[]) AS t(device_id, worker_id, kind)
       ), candidates AS (
         SELECT d.id, d.worker_id, d.token, d.platform::text AS platform, NULL::text AS p256dh, NULL::text AS auth, t.kind
         FROM targets t JOIN notifications.device d ON d.id = t.device_id AND d.worker_id = t.worker_id
         UNION ALL
         SELECT s.id, s.worker_id, s.endpoint, 'web', s.p256dh::text, s.auth::text, t.kind
         FROM targets t JOIN notifications.web_push_subscription s ON s.id = t.device_id AND s.worker_id = t.worker_id
       ), claimed AS (
         INSERT INTO notifications.push_delivery AS p (event_id, worker_id, device_id, kind, offer_id, status, claimed_by)
         SELECT $1, c.worker_id, c.id, c.kind, $5, 'sending', $6 FROM candidates c
         ON CONFLICT (event_id, device_id) DO UPDATE SET status = 'sending', claimed_by = $6, updated_at = now()
           WHERE p.status = 'retrying' OR (p.status = 'sending' AND (p.claimed_by = $6 OR p.updated_at < $7))
         RETURNING p.device_id
       )
       SELECT c.id AS "deviceId", c.worker_id AS "workerId", c.token, c.platform, c.p256dh, c.auth
       FROM candidates c JOIN claimed ON claimed.device_id = c.id`,
      [event.eventId, targets.map((t) => t.d), targets.map((t) => t.w), targets.map((t) => t.k), event.offerId, jobId, abandonedBefore],
    );
  }

  /**
   * Records this event's stage of the offer for each worker where OfferStageRule lets it win (no stage
   * yet, a lower one, or one this event recorded) and returns those workers; the others' pushes are
   * superseded. One upsert, so of two instances deciding at once only one wins.
   */
  async claimStage(event: { eventId: string; offerId: string }, workers: Array<{ workerId: string; stageOrder: number }>): Promise<Set<string>> {
    if (workers.length === 0) return new Set();
    const rows: Array<{ workerId: string }> = await this.dataSource.query(
      `INSERT INTO notifications.offer_stage AS s (offer_id, worker_id, stage_order, event_id)
       SELECT $1, w.worker_id, w.stage_order, $2 FROM unnest($3::text[], $4::smallint[]) AS w(worker_id, stage_order)
       ON CONFLICT (offer_id, worker_id) DO UPDATE SET stage_order = EXCLUDED.stage_order, event_id = EXCLUDED.event_id, updated_at = now()
         WHERE s.stage_order < EXCLUDED.stage_order OR s.event_id = EXCLUDED.event_id
       RETURNING s.worker_id AS "workerId"`,
      [event.offerId, event.eventId, workers.map((w) => w.workerId), workers.map((w) => w.stageOrder)],
    );
    return new Set(rows.map((r) => r.workerId));
  }

  /** Records outcomes; a final outcome is never overwritten (unique per event and device). */
  async recordDeliveries(records: DeliveryRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO notifications.push_delivery (event_id, worker_id, device_id, kind, offer_id, status, error_code, message_id, sent_at)
       SELECT r.event_id, r.worker_id, r.device_id, r.kind, r.offer_id, r.status, r.error_code, r.message_id,
              CASE WHEN r.status = 'sent' THEN now() END
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[])
         AS r(event_id, worker_id, device_id, kind, offer_id, status, error_code, message_id)
       ON CONFLICT (event_id, device_id) DO UPDATE
         SET status = EXCLUDED.status, error_code = EXCLUDED.error_code, message_id = EXCLUDED.message_id,
             sent_at = EXCLUDED.sent_at, attempts = notifications.push_delivery.attempts + 1, updated_at = now()
         WHERE notifications.push_delivery.status IN ('sending', 'retrying')`,
      [
        records.map((r) => r.eventId),
        records.map((r) => r.workerId),
        records.map((r) => r.deviceId),
        records.map((r) => r.kind),
        records.map((r) => r.offerId),
        records.map((r) => r.status),
        records.map((r) => r.errorCode),
        records.map((r) => r.messageId),
      ],
    );
  }

  /** Pending fan-outs recorded before `before`, oldest first, from after `after` (the last of the previous page). */
  async pendingFanOuts(before: Date, after: { createdAt: Date; eventId: string } | undefined, limit: number): Promise<PendingFanOut[]> {
    return this.dataSource.query(
      `SELECT event_id AS "eventId", offer_id AS "offerId", organisation_id AS "organisationId", offer_title AS title, created_at AS "createdAt"
       FROM notifications.pending_fan_out
       WHERE created_at < $1 AND ($2::timestamptz IS NULL OR (created_at, event_id) > ($2, $3::uuid))
       ORDER BY created_at, event_id LIMIT $4`,
      [before, after?.createdAt ?? null, after?.eventId ?? null, limit],
    );
  }

  /**
   * The devices of these fan-outs without a final outcome: each recipient's devices and Web Push
   * subscriptions registered by the time of the fan-out (those its jobs were planned with), with no
   * delivery row or one still `sending` or `retrying`.
   */
  async unfinishedPushes(eventIds: string[]): Promise<UnfinishedPush[]> {
    if (eventIds.length === 0) return [];
    return this.dataSource.query(
      `SELECT o.event_id AS "eventId", d.id AS "deviceId", n.worker_id AS "workerId", n.kind, p.status, p.updated_at AS "updatedAt"
       FROM notifications.pending_fan_out o
       JOIN notifications.worker_notification n ON n.event_id = o.event_id
       JOIN (SELECT id, worker_id, created_at FROM notifications.device
             UNION ALL
             SELECT id, worker_id, created_at FROM notifications.web_push_subscription) d
         ON d.worker_id = n.worker_id AND d.created_at <= o.created_at
       LEFT JOIN notifications.push_delivery p ON p.event_id = o.event_id AND p.device_id = d.id
       WHERE o.event_id = ANY($1::uuid[]) AND (p.status IS NULL OR p.status IN ('sending', 'retrying'))`,
      [eventIds],
    );
  }

  async forgetFanOuts(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.dataSource.query(`DELETE FROM notifications.pending_fan_out WHERE event_id = ANY($1::uuid[])`, [eventIds]);
  }
}
