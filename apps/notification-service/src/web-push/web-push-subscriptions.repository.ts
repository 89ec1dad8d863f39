import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { affectedRows, tokenHash } from '../devices/devices.repository.js';

/** A worker keeps at most this many subscriptions; registering another drops the least recently registered. */
export const MAX_SUBSCRIPTIONS_PER_WORKER = 20;

export interface WebPushSubscriptionRow {
  id: string;
  workerId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expirationTime: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, worker_id AS "workerId", endpoint, p256dh, auth, expiration_time AS "expirationTime", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Workers' browser push subscriptions. The rule of the FCM device registry applies to endpoints: an
 * endpoint belongs to the worker who registered it until that worker deletes it or the push service
 * reports it gone; another worker registering it is refused (README).
 */
@Injectable()
export class WebPushSubscriptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Registers an endpoint or updates this worker's registration of it; `taken` when another worker holds it. */
  async upsert(
    workerId: string,
    subscription: { endpoint: string; p256dh: string; auth: string; expirationTime: Date | null },
  ): Promise<{ taken: true } | { taken: false; subscription: WebPushSubscriptionRow; created: boolean }> {
    const rows: Array<WebPushSubscriptionRow & { created: boolean }> = await this.dataSource.query(
      `INSERT INTO notifications.web_push_subscription AS s (id, worker_id, endpoint, endpoint_hash, p256dh, auth, expiration_time)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (endpoint_hash) DO UPDATE
         SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, expiration_time = EXCLUDED.expiration_time, updated_at = now()
         WHERE s.worker_id = EXCLUDED.worker_id
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [randomUUID(), workerId, subscription.endpoint, tokenHash(subscription.endpoint), subscription.p256dh, subscription.auth, subscription.expirationTime],
    );
    if (rows.length === 0) return { taken: true };
    const { created, ...row } = rows[0];
    if (created) await this.dropBeyondLimit(workerId);
    return { taken: false, subscription: row, created };
  }

  async forWorker(workerId: string): Promise<WebPushSubscriptionRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM notifications.web_push_subscription WHERE worker_id = $1 ORDER BY created_at, id`, [workerId]);
  }

  async delete(workerId: string, id: string): Promise<boolean> {
    const result: unknown = await this.dataSource.query(`DELETE FROM notifications.web_push_subscription WHERE id = $1 AND worker_id = $2`, [id, workerId]);
    return affectedRows(result) > 0;
  }

  /** Every subscription of these workers, in one query (the fan-out's targets beside the devices). */
  async forWorkers(workerIds: string[]): Promise<Array<{ id: string; workerId: string }>> {
    if (workerIds.length === 0) return [];
    return this.dataSource.query(`SELECT id, worker_id AS "workerId" FROM notifications.web_push_subscription WHERE worker_id = ANY($1::text[])`, [workerIds]);
  }

  /** The push service said these endpoints are gone: forget them (only if the row still holds that endpoint). */
  async deleteEndpoints(subscriptions: Array<{ id: string; endpoint: string }>): Promise<number> {
    if (subscriptions.length === 0) return 0;
    const result: unknown = await this.dataSource.query(
      `DELETE FROM notifications.web_push_subscription s USING unnest($1::uuid[], $2::text[]) AS t(id, endpoint_hash)
       WHERE s.id = t.id AND s.endpoint_hash = t.endpoint_hash`,
      [subscriptions.map((s) => s.id), subscriptions.map((s) => tokenHash(s.endpoint))],
    );
    return affectedRows(result);
  }

  /** A browser that lost its site data subscribes anew while the old endpoint lingers: the oldest go first. */
  private async dropBeyondLimit(workerId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM notifications.web_push_subscription WHERE worker_id = $1 AND id NOT IN (
         SELECT id FROM notifications.web_push_subscription WHERE worker_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2)`,
      [workerId, MAX_SUBSCRIPTIONS_PER_WORKER],
    );
  }
}
