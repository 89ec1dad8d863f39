import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Invitation e-mails each organisation sent each day (`directory.invitations_sent`), counted in the
 * transaction that records the invitations and their events: a request refused, or rolled back for
 * any reason, has counted nothing.
 */
@Injectable()
export class InvitationsSentRepository {
  /**
   * Counts `count` more against the organisation's `day` unless the day's total would pass `max`;
   * else counts nothing and says how many were sent that day. The day's row stays locked until the
   * transaction ends, so requests at once (on any instance) are counted one after another and
   * together never pass `max`. Rows older than yesterday are forgotten on the way.
   */
  async take(manager: EntityManager, organisationId: string, day: string, count: number, max: number): Promise<{ taken: true } | { taken: false; sent: number }> {
    const rows: unknown[] = await manager.query(
      `WITH forgotten AS (DELETE FROM directory.invitations_sent WHERE organisation_id = $1 AND day < $2::date - 1)
       INSERT INTO directory.invitations_sent AS s (organisation_id, day, sent)
       SELECT $1::uuid, $2::date, $3::int WHERE $3::int <= $4::int
       ON CONFLICT (organisation_id, day) DO UPDATE SET sent = s.sent + EXCLUDED.sent WHERE s.sent + EXCLUDED.sent <= $4::int
       RETURNING sent`,
      [organisationId, day, count, max],
    );
    if (rows.length > 0) return { taken: true };
    const sent: Array<{ sent: number }> = await manager.query(`SELECT sent FROM directory.invitations_sent WHERE organisation_id = $1 AND day = $2::date`, [organisationId, day]);
    return { taken: false, sent: sent[0]?.sent ?? 0 };
  }
}
