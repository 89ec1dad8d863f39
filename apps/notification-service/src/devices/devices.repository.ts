import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DevicePlatform } from '../push/push-transport.js';

export const NOTIFICATIONS_SCHEMA = 'notifications';

export interface DeviceRow {
  id: string;
  workerId: string;
  token: string;
  platform: DevicePlatform;
  appVersion: string;
  createdAt: Date;
  updatedAt: Date;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** TypeORM's postgres driver answers an UPDATE or DELETE with `[rows, affectedCount]`. */
export function affectedRows(result: unknown): number {
  if (Array.isArray(result) && result.length === 2 && typeof result[1] === 'number') return result[1];
  return Array.isArray(result) ? result.length : 0;
}

const COLUMNS = `id, worker_id AS "workerId", token, platform, app_version AS "appVersion", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Workers' FCM registration tokens. A token belongs to the one worker who registered it until that
 * worker releases it (sign-out) or FCM reports it dead: another worker registering it is refused, so
 * nobody can take over someone else's pushes by presenting their token (docs in the service README).
 */
@Injectable()
export class DevicesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Registers a token, or updates this worker's registration of it (platform, version): `created` is
   * false for an update. `taken` when another worker holds the token; nothing is changed then.
   */
  async upsert(
    workerId: string,
    token: string,
    platform: DevicePlatform,
    appVersion: string,
  ): Promise<{ taken: true } | { taken: false; device: DeviceRow; created: boolean }> {
    const rows: Array<DeviceRow & { created: boolean }> = await this.dataSource.query(
      `INSERT INTO notifications.device (id, worker_id, token, token_hash, platform, app_version)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (token_hash) DO UPDATE
         SET platform = EXCLUDED.platform, app_version = EXCLUDED.app_version, updated_at = now()
         WHERE device.worker_id = EXCLUDED.worker_id
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [randomUUID(), workerId, token, tokenHash(token), platform, appVersion],
    );
    if (rows.length === 0) return { taken: true };
    const { created, ...device } = rows[0];
    return { taken: false, device, created };
  }

  async forWorker(workerId: string): Promise<DeviceRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM notifications.device WHERE worker_id = $1 ORDER BY created_at, id`, [workerId]);
  }

  async delete(workerId: string, deviceId: string): Promise<boolean> {
    const result: unknown = await this.dataSource.query(`DELETE FROM notifications.device WHERE id = $1 AND worker_id = $2`, [deviceId, workerId]);
    return affectedRows(result) > 0;
  }

  /** Every device of these workers, in one query. */
  async forWorkers(workerIds: string[]): Promise<Array<{ id: string; workerId: string }>> {
    if (workerIds.length === 0) return [];
    return this.dataSource.query(`SELECT id, worker_id AS "workerId" FROM notifications.device WHERE worker_id = ANY($1::text[])`, [workerIds]);
  }

  /** FCM said these tokens are dead: forget them (only if the device still holds that token). */
  async deleteTokens(devices: Array<{ id: string; token: string }>): Promise<number> {
    if (devices.length === 0) return 0;
    const result: unknown = await this.dataSource.query(
      `DELETE FROM notifications.device d USING unnest($1::uuid[], $2::text[]) AS t(id, token_hash)
       WHERE d.id = t.id AND d.token_hash = t.token_hash`,
      [devices.map((d) => d.id), devices.map((d) => tokenHash(d.token))],
    );
    return affectedRows(result);
  }
}
