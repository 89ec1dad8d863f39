import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MAX_SIGN_IN_LINKS, type SignInAudience } from '@availability/contracts';
import type { PortalUserRole } from '../directory/directory.repository.js';

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

  /** Stores the codes' hashes, valid for `ttlSeconds`; codes expired over a day ago are deleted on the way. */
  async insertCodes(codes: NewSignInCode[], ttlSeconds: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM directory.sign_in_code WHERE expires_at < now() - interval '1 day'`);
    await this.dataSource.query(
      `INSERT INTO directory.sign_in_code (code_hash, subject_kind, user_id, worker_id, expires_at)
       SELECT code.hash, code.kind, CASE WHEN code.kind = 'user' THEN code.subject END, CASE WHEN code.kind = 'worker' THEN code.subject END,
              now() + make_interval(secs => $4::double precision)
       FROM unnest($1::char(64)[], $2::varchar[], $3::uuid[]) AS code (hash, kind, subject)`,
      [codes.map((c) => c.codeHash), codes.map((c) => c.kind), codes.map((c) => c.subjectId), ttlSeconds],
    );
  }

  /** Codes of a request whose e-mail could not be handed over: nobody received them. */
  async deleteCodes(codeHashes: string[]): Promise<void> {
    await this.dataSource.query(`DELETE FROM directory.sign_in_code WHERE code_hash = ANY($1::char(64)[]) AND used_at IS NULL`, [codeHashes]);
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
