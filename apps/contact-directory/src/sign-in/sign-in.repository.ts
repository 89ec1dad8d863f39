import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MAX_SIGN_IN_LINKS, type SignInAudience } from '@availability/contracts';
import { appendToOutbox, type OutboxMessage } from '@availability/messaging';
import { DIRECTORY_SCHEMA, type PortalUserRole } from '../directory/directory.repository.js';
import type { MailPace } from './sign-in-mail-pace.js';

/** An account an e-mail address may sign in as. */
export type SignInAccount =
  | { kind: 'user'; id: string; organisationName: string }
  | { kind: 'worker'; id: string; name: string; organisationNames: string[] };

export interface NewSignInCode {
  kind: 'user' | 'worker';
  subjectId: string;
  codeHash: string;
}

export interface SignedInUser {
  id: string;
  name: string;
  email: string;
  organisationId: string;
  organisationName: string;
  role: PortalUserRole;
}

export interface SignedInWorker {
  id: string;
  name: string;
  email: string | null;
  organisations: Array<{ organisationId: string; organisationName: string }>;
}

/**
 * The SQL of sign-in by e-mailed link. Expiry is decided by the database's clock (`now()`), the one
 * clock every statement that issues, redeems or verifies shares.
 */
@Injectable()
export class SignInRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', work);
  }

  /** A sign-in request, kept in the outbox (one statement, committed when it returns) until the relay publishes it. */
  async recordRequest(message: OutboxMessage): Promise<void> {
    await appendToOutbox(this.dataSource.manager, DIRECTORY_SCHEMA, [message]);
  }

  /** The address's portal users (one per organisation), or its workers; e-mail compared ignoring case. */
  async accounts(audience: SignInAudience, email: string): Promise<SignInAccount[]> {
    if (audience === 'portal') {
      const rows: Array<{ id: string; organisationName: string }> = await this.dataSource.query(
        `SELECT u.id::text, o.name AS "organisationName"
         FROM directory.portal_user u JOIN directory.organisation o ON o.id = u.organisation_id
         WHERE lower(u.email) = lower($1)
         ORDER BY o.name, u.id LIMIT $2`,
        [email, MAX_SIGN_IN_LINKS],
      );
      return rows.map((row) => ({ kind: 'user', ...row }));
    }
    const rows: Array<{ id: string; name: string; organisationNames: string[] }> = await this.dataSource.query(
      `SELECT w.id::text, w.name,
              COALESCE(array_agg(o.name::text ORDER BY o.name) FILTER (WHERE o.id IS NOT NULL), '{}') AS "organisationNames"
       FROM directory.worker w
       LEFT JOIN directory.organisation_worker ow ON ow.worker_id = w.id
       LEFT JOIN directory.organisation o ON o.id = ow.organisation_id
       WHERE lower(w.email) = lower($1)
       GROUP BY w.id
       ORDER BY w.name, w.id LIMIT $2`,
      [email, MAX_SIGN_IN_LINKS],
    );
    return rows.map((row) => ({ kind: 'worker', ...row }));
  }

  /** Stores the codes' hashes, valid for `ttlSeconds` (expired ones are pruned: directoryRetention). */
  async insertCodes(manager: EntityManager, codes: NewSignInCode[], ttlSeconds: number): Promise<void> {
    await manager.query(
      `INSERT INTO directory.sign_in_code (code_hash, subject_kind, user_id, worker_id, expires_at)
       SELECT code.hash, code.kind, CASE WHEN code.kind = 'user' THEN code.subject END, CASE WHEN code.kind = 'worker' THEN code.subject END,
              now() + make_interval(secs => $4::double precision)
       FROM unnest($1::char(64)[], $2::varchar[], $3::uuid[]) AS code (hash, kind, subject)`,
      [codes.map((c) => c.codeHash), codes.map((c) => c.kind), codes.map((c) => c.subjectId), ttlSeconds],
    );
  }

  /**
   * The address's e-mail pace (SignInMailPace), locked until the transaction ends, so requests for one
   * address are decided one after the other; and the database's time, which the decision goes by.
   */
  async lockMailPace(manager: EntityManager, addressHash: string): Promise<{ pace: MailPace; now: Date }> {
    await manager.query(`INSERT INTO directory.sign_in_mail_pace (address_hash) VALUES ($1) ON CONFLICT DO NOTHING`, [addressHash]);
    const rows: Array<{ windowStartedAt: Date | null; mailsInWindow: number; lastMailAt: Date | null; now: Date }> = await manager.query(
      `SELECT window_started_at AS "windowStartedAt", mails_in_window AS "mailsInWindow", last_mail_at AS "lastMailAt", now() AS now
       FROM directory.sign_in_mail_pace WHERE address_hash = $1 FOR UPDATE`,
      [addressHash],
    );
    const { now, ...pace } = rows[0];
    return { pace, now };
  }

  /** Remembers the address's pace (addresses not e-mailed for a day are pruned: directoryRetention). */
  async saveMailPace(manager: EntityManager, addressHash: string, pace: MailPace): Promise<void> {
    await manager.query(
      `UPDATE directory.sign_in_mail_pace SET window_started_at = $2, mails_in_window = $3, last_mail_at = $4 WHERE address_hash = $1`,
      [addressHash, pace.windowStartedAt, pace.mailsInWindow, pace.lastMailAt],
    );
  }

  /**
   * Marks the code used if it is unused and unexpired, in one statement: of two concurrent
   * redemptions, the second waits for the first and then finds it used. Its subject, or undefined.
   */
  async redeem(manager: EntityManager, codeHash: string): Promise<{ kind: 'user' | 'worker'; subjectId: string } | undefined> {
    const rows: Array<{ kind: 'user' | 'worker'; subjectId: string }> = await manager.query(
      `WITH redeemed AS (
         UPDATE directory.sign_in_code SET used_at = now()
         WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
         RETURNING subject_kind, user_id, worker_id
       )
       SELECT subject_kind AS kind, COALESCE(user_id, worker_id)::text AS "subjectId" FROM redeemed`,
      [codeHash],
    );
    return rows[0];
  }

  async user(manager: EntityManager, userId: string): Promise<SignedInUser | undefined> {
    const rows: SignedInUser[] = await manager.query(
      `SELECT u.id::text, u.name, u.email, u.organisation_id::text AS "organisationId", o.name AS "organisationName", u.role
       FROM directory.portal_user u JOIN directory.organisation o ON o.id = u.organisation_id WHERE u.id = $1`,
      [userId],
    );
    return rows[0];
  }

  async worker(manager: EntityManager, workerId: string): Promise<SignedInWorker | undefined> {
    const rows: SignedInWorker[] = await manager.query(
      `SELECT w.id::text, w.name, w.email,
              COALESCE(json_agg(json_build_object('organisationId', o.id, 'organisationName', o.name) ORDER BY o.name)
                       FILTER (WHERE o.id IS NOT NULL), '[]') AS organisations
       FROM directory.worker w
       LEFT JOIN directory.organisation_worker ow ON ow.worker_id = w.id
       LEFT JOIN directory.organisation o ON o.id = ow.organisation_id
       WHERE w.id = $1
       GROUP BY w.id`,
      [workerId],
    );
    return rows[0];
  }
}
