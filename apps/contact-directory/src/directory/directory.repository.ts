import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { CredentialVerdict } from '@availability/contracts';
import type { IssuedCredential } from '../credentials/credential-tokens.js';

export const DIRECTORY_SCHEMA = 'directory';

export type OrganisationKind = 'hirer' | 'agency' | 'integrator';
export type PortalUserRole = 'admin' | 'member';

export interface Organisation {
  id: string;
  name: string;
  kind: OrganisationKind;
}

export interface PortalUser {
  id: string;
  organisationId: string;
  email: string;
  name: string;
  role: PortalUserRole;
}

export interface NewWorker {
  id: string;
  name: string;
  email: string | null;
  token: IssuedCredential;
}

/**
 * The live credential with this hash, whichever kind it is; hashes are unique across both tables in
 * practice (SHA-256). A token past its `expires_at` (sign-in sessions; null = no expiry) is not live.
 */
export const VERIFY_CREDENTIAL_SQL = `
SELECT 'organisation' AS kind, k.organisation_id::text AS "organisationId", k.id::text AS "apiKeyId", NULL AS "workerId",
       NULL AS "userId", NULL AS role
FROM directory.api_key k WHERE k.key_hash = $1 AND k.revoked_at IS NULL
UNION ALL
SELECT 'worker', NULL, NULL, t.worker_id::text, NULL, NULL
FROM directory.worker_token t WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
UNION ALL
SELECT 'user', u.organisation_id::text, NULL, NULL, u.id::text, u.role::text
FROM directory.portal_user_token p JOIN directory.portal_user u ON u.id = p.user_id
WHERE p.token_hash = $1 AND p.revoked_at IS NULL AND (p.expires_at IS NULL OR p.expires_at > now())
LIMIT 1`;

/**
 * One round trip for a whole offer's audience: whether the user belongs to the organisation, and
 * which of the requested workers (any number, as one uuid[] parameter) are linked to it.
 */
export const RESOLVE_AUDIENCE_SQL = `
SELECT EXISTS (SELECT 1 FROM directory.portal_user u WHERE u.organisation_id = $1 AND u.id = $2) AS "userKnown",
       found.ids, found.names
FROM (
  SELECT array_agg(w.id::text) AS ids, array_agg(w.name::text) AS names
  FROM directory.organisation_worker ow
  JOIN directory.worker w ON w.id = ow.worker_id
  WHERE ow.organisation_id = $1 AND ow.worker_id = ANY($3::uuid[])
) found`;

/** Credentials that belong to one owner row; the same statements serve both tables (constants, never input). */
const OWNED_TOKENS = {
  worker: { table: 'directory.worker_token', ownerColumn: 'worker_id', ownerTable: 'directory.worker' },
  user: { table: 'directory.portal_user_token', ownerColumn: 'user_id', ownerTable: 'directory.portal_user' },
} as const;

export type OwnedTokenKind = keyof typeof OWNED_TOKENS;

/**
 * The SQL of organisations, users, workers and credentials (the portal features' SQL is in
 * portal/portal.repository.ts). Ids passed in are already known to be uuids.
 * UPDATE … RETURNING is wrapped in a CTE: TypeORM returns `[rows, count]` for a top-level UPDATE.
 */
@Injectable()
export class DirectoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', work);
  }

  async verifyCredential(tokenHash: string): Promise<CredentialVerdict> {
    const rows: Array<{
      kind: 'organisation' | 'worker' | 'user';
      organisationId: string;
      apiKeyId: string;
      workerId: string;
      userId: string;
      role: PortalUserRole;
    }> = await this.dataSource.query(VERIFY_CREDENTIAL_SQL, [tokenHash]);
    const row = rows[0];
    if (!row) return { kind: 'none' };
    if (row.kind === 'organisation') return { kind: 'organisation', organisationId: row.organisationId, apiKeyId: row.apiKeyId };
    if (row.kind === 'user') return { kind: 'user', userId: row.userId, organisationId: row.organisationId, role: row.role };
    return { kind: 'worker', workerId: row.workerId };
  }

  /** `userId` null means "not a uuid": never known. Returns worker id → name for the linked workers. */
  async resolveAudience(
    organisationId: string,
    userId: string | null,
    workerIds: string[],
  ): Promise<{ userKnown: boolean; names: Map<string, string> }> {
    const rows: Array<{ userKnown: boolean; ids: string[] | null; names: string[] | null }> = await this.dataSource.query(
      RESOLVE_AUDIENCE_SQL,
      [organisationId, userId, workerIds],
    );
    const { userKnown, ids, names } = rows[0];
    const found = new Map<string, string>();
    (ids ?? []).forEach((id, index) => found.set(id, (names ?? [])[index]));
    return { userKnown, names: found };
  }

  async organisationExists(organisationId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM directory.organisation WHERE id = $1`, [organisationId]);
    return rows.length > 0;
  }

  /** Approves (or stops approving) an organisation as a suggestion provider; undefined when it does not exist. */
  async setSuggestionProviderApproved(organisationId: string, approved: boolean): Promise<{ kind: OrganisationKind } | undefined> {
    const rows: Array<{ kind: OrganisationKind }> = await this.dataSource.query(
      `WITH updated AS (UPDATE directory.organisation SET suggestion_provider_approved = $2 WHERE id = $1 RETURNING kind) SELECT kind FROM updated`,
      [organisationId, approved],
    );
    return rows[0];
  }

  /** The organisation and its first API key, atomically. */
  async insertOrganisation(organisation: Organisation, keyName: string, key: IssuedCredential): Promise<void> {
    await this.dataSource.query(
      `WITH new_organisation AS (
         INSERT INTO directory.organisation (id, name, kind) VALUES ($1, $2, $3) RETURNING id
       )
       INSERT INTO directory.api_key (id, organisation_id, name, key_hash, key_prefix)
       SELECT $4, id, $5, $6, $7 FROM new_organisation`,
      [organisation.id, organisation.name, organisation.kind, key.id, keyName, key.tokenHash, key.visiblePrefix],
    );
  }

  /** False when the organisation does not exist. */
  async insertApiKey(organisationId: string, name: string, key: IssuedCredential): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO directory.api_key (id, organisation_id, name, key_hash, key_prefix)
       SELECT $1, o.id, $3, $4, $5 FROM directory.organisation o WHERE o.id = $2
       RETURNING id`,
      [key.id, organisationId, name, key.tokenHash, key.visiblePrefix],
    );
    return rows.length > 0;
  }

  /** Marks the key revoked (keeping the first revocation time); its hash, or undefined when there is no such key. */
  async revokeApiKey(apiKeyId: string): Promise<string | undefined> {
    const rows: Array<{ tokenHash: string }> = await this.dataSource.query(
      `WITH revoked AS (
         UPDATE directory.api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING key_hash
       )
       SELECT key_hash AS "tokenHash" FROM revoked`,
      [apiKeyId],
    );
    return rows[0]?.tokenHash;
  }

  /** False when the organisation already has a user with this e-mail address (ignoring case). */
  async insertPortalUser(user: PortalUser): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO directory.portal_user (id, organisation_id, email, name, role) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organisation_id, lower(email)) DO NOTHING
       RETURNING id`,
      [user.id, user.organisationId, user.email, user.name, user.role],
    );
    return rows.length > 0;
  }

  /** Workers, their link to the organisation and a token each: three multi-row inserts, whatever the count. */
  async insertWorkers(manager: EntityManager, organisationId: string, workers: NewWorker[]): Promise<void> {
    const ids = workers.map((w) => w.id);
    await manager.query(
      `INSERT INTO directory.worker (id, name, email)
       SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::varchar[])`,
      [ids, workers.map((w) => w.name), workers.map((w) => w.email)],
    );
    await manager.query(
      `INSERT INTO directory.organisation_worker (organisation_id, worker_id)
       SELECT $1, worker_id FROM unnest($2::uuid[]) AS worker_id`,
      [organisationId, ids],
    );
    await manager.query(
      `INSERT INTO directory.worker_token (id, worker_id, token_hash)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::char(64)[])`,
      [workers.map((w) => w.token.id), ids, workers.map((w) => w.token.tokenHash)],
    );
  }

  /** Links an existing worker to an organisation (again is fine); says which of the two exists. */
  async linkWorker(organisationId: string, workerId: string): Promise<{ organisationFound: boolean; workerFound: boolean }> {
    const rows: Array<{ organisationFound: boolean; workerFound: boolean }> = await this.dataSource.query(
      `WITH found AS (
         SELECT (SELECT id FROM directory.organisation WHERE id = $1) AS organisation_id,
                (SELECT id FROM directory.worker WHERE id = $2) AS worker_id
       ), linked AS (
         INSERT INTO directory.organisation_worker (organisation_id, worker_id)
         SELECT organisation_id, worker_id FROM found WHERE organisation_id IS NOT NULL AND worker_id IS NOT NULL
         ON CONFLICT DO NOTHING
       )
       SELECT organisation_id IS NOT NULL AS "organisationFound", worker_id IS NOT NULL AS "workerFound" FROM found`,
      [organisationId, workerId],
    );
    return rows[0];
  }

  /**
   * Issues a worker or portal-user token; false when its owner does not exist. `lifetimeSeconds`: a
   * sign-in session's, counted from the database's clock; absent, the token never expires (operators').
   */
  async insertOwnedToken(
    kind: OwnedTokenKind,
    ownerId: string,
    token: IssuedCredential,
    lifetimeSeconds?: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ expiresAt: Date | null } | undefined> {
    const { table, ownerColumn, ownerTable } = OWNED_TOKENS[kind];
    const rows: Array<{ expiresAt: Date | null }> = await manager.query(
      `INSERT INTO ${table} (id, ${ownerColumn}, token_hash, expires_at)
       SELECT $1, owner.id, $3, now() + make_interval(secs => $4::double precision) FROM ${ownerTable} owner WHERE owner.id = $2
       RETURNING expires_at AS "expiresAt"`,
      [token.id, ownerId, token.tokenHash, lifetimeSeconds ?? null],
    );
    return rows[0];
  }

  /**
   * Revokes a worker or portal-user token, found by id (operators) or by hash (its holder signing out);
   * again is harmless. Its hash, or undefined when unknown.
   */
  async revokeOwnedToken(kind: OwnedTokenKind, token: { id: string } | { tokenHash: string }): Promise<string | undefined> {
    const { table } = OWNED_TOKENS[kind];
    const [column, value] = 'id' in token ? ['id', token.id] : ['token_hash', token.tokenHash];
    const rows: Array<{ tokenHash: string }> = await this.dataSource.query(
      `WITH revoked AS (
         UPDATE ${table} SET revoked_at = COALESCE(revoked_at, now()) WHERE ${column} = $1 RETURNING token_hash
       )
       SELECT token_hash AS "tokenHash" FROM revoked`,
      [value],
    );
    return rows[0]?.tokenHash;
  }
}
