import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, DAY_MS, loadConfig, migrate, Pruner } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { ContactDirectoryConfig } from '../src/config/contact-directory.config.js';
import { DIRECTORY_SCHEMA, DirectoryRepository } from '../src/directory/directory.repository.js';
import { DIRECTORY_MIGRATIONS } from '../src/migrations/index.js';
import { directoryRetention, SIGN_IN_CODE_KEEP_MS } from '../src/retention/directory-retention.js';

/** contact-directory's retention on a real database: sign-in codes, ended session tokens and invitations past their periods go, nothing else. */
let database: TestDatabase;
let dataSource: DataSource;
const organisationId = randomUUID();
const userId = randomUUID();
const workerId = randomUUID();

const NOW = Date.now();
const at = (msAgo: number) => new Date(NOW - msAgo);
const config = loadConfig(ContactDirectoryConfig, {});

function prune(): Promise<Record<string, number>> {
  return new Pruner(dataSource, { classes: directoryRetention(config), intervalMs: 3_600_000, batchRows: 500, runMs: 60_000, now: () => NOW }).pruneOnce();
}

const hash = () => randomUUID().replaceAll('-', '').padEnd(64, '0');

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = await createDataSource({ url: database.url, schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS, poolSize: 4, applicationName: 'retention-test' }).initialize();
  await migrate(dataSource, DIRECTORY_SCHEMA);
  await dataSource.query(`INSERT INTO directory.organisation (id, name, kind) VALUES ($1, 'Keeper', 'hirer')`, [organisationId]);
  await dataSource.query(`INSERT INTO directory.portal_user (id, organisation_id, email, name, role) VALUES ($1, $2, 'admin@keeper.example', 'Admin', 'admin')`, [userId, organisationId]);
  await dataSource.query(`INSERT INTO directory.worker (id, name) VALUES ($1, 'Worker')`, [workerId]);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe("contact-directory's retention on PostgreSQL", () => {
  it('removes sign-in codes a day past their expiry', async () => {
    const codes = [at(SIGN_IN_CODE_KEEP_MS + 1), at(SIGN_IN_CODE_KEEP_MS), at(-60_000)].map((expiresAt) => ({ hash: hash(), expiresAt }));
    for (const code of codes) {
      await dataSource.query(`INSERT INTO directory.sign_in_code (code_hash, subject_kind, user_id, expires_at) VALUES ($1, 'user', $2, $3)`, [code.hash, userId, code.expiresAt]);
    }
    expect(await prune()).toMatchObject({ 'sign-in-codes': 1 });
    const rows: Array<{ hash: string }> = await dataSource.query(`SELECT code_hash AS hash FROM directory.sign_in_code`);
    expect(rows.map((row) => row.hash).sort()).toEqual([codes[1].hash, codes[2].hash].sort());
  });

  it('removes session tokens ended (expired or revoked) longer ago than their period; live ones and those without an end stay', async () => {
    const keep = config.SESSION_TOKEN_RETENTION_DAYS * DAY_MS;
    const tokens = [
      { expiresAt: at(keep + 1), revokedAt: null }, // expired: goes
      { expiresAt: at(-DAY_MS), revokedAt: at(keep + 1) }, // revoked before its expiry: goes
      { expiresAt: at(keep), revokedAt: null }, // exactly the period: kept
      { expiresAt: null, revokedAt: at(keep * 2) }, // revoked, no expiry: goes
      { expiresAt: null, revokedAt: null }, // no end: kept
      { expiresAt: at(-DAY_MS), revokedAt: null }, // live: kept
    ].map((token) => ({ ...token, id: randomUUID(), hash: hash() }));
    for (const token of tokens) {
      await dataSource.query(`INSERT INTO directory.portal_user_token (id, user_id, token_hash, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`, [token.id, userId, token.hash, token.expiresAt, token.revokedAt]);
      await dataSource.query(`INSERT INTO directory.worker_token (id, worker_id, token_hash, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`, [token.id, workerId, hash(), token.expiresAt, token.revokedAt]);
    }
    expect(await prune()).toMatchObject({ 'portal-user-tokens': 3, 'worker-tokens': 3 });
    const kept = [tokens[2].id, tokens[4].id, tokens[5].id].sort();
    for (const table of ['portal_user_token', 'worker_token']) {
      const rows: Array<{ id: string }> = await dataSource.query(`SELECT id::text FROM directory.${table} ORDER BY id`);
      expect(rows.map((row) => row.id)).toEqual(kept);
    }
    // A live token still lets its holder in; an ended one was refused before it went and is refused after.
    const directory = new DirectoryRepository(dataSource);
    expect(await directory.verifyCredential(tokens[5].hash)).toMatchObject({ kind: 'user', userId });
    expect(await directory.verifyCredential(tokens[0].hash)).toEqual({ kind: 'none' });
  });

  it('removes invitations older than their period, whatever became of them', async () => {
    const keep = config.INVITATION_RETENTION_DAYS * DAY_MS;
    const invitations = [at(keep + 1), at(keep), at(DAY_MS)].map((createdAt, index) => ({ id: randomUUID(), createdAt, email: `invitee${index}@keeper.example` }));
    for (const invitation of invitations) {
      await dataSource.query(
        `INSERT INTO directory.invitation (id, organisation_id, invited_by_user_id, name, email, created_at) VALUES ($1, $2, $3, 'Invitee', $4, $5)`,
        [invitation.id, organisationId, userId, invitation.email, invitation.createdAt],
      );
    }
    expect(await prune()).toMatchObject({ invitations: 1 });
    const rows: Array<{ id: string }> = await dataSource.query(`SELECT id::text FROM directory.invitation`);
    expect(rows.map((row) => row.id).sort()).toEqual([invitations[1].id, invitations[2].id].sort());
  });

  it('reads every class by an index that its time leads, so a pruning batch never scans its table', async () => {
    for (const { name, table, time } of directoryRetention(config)) {
      const [schema, relation] = table.replaceAll('"', '').split('.');
      const indexes: Array<{ indexdef: string }> = await dataSource.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2`, [schema, relation]);
      const leading = indexes.map(({ indexdef }) => /USING btree \((.*)\)/.exec(indexdef)?.[1] ?? '').filter((columns) => columns.startsWith(time));
      expect({ name, indexed: leading.length > 0 }).toEqual({ name, indexed: true });
    }
  });

  it('keeps the business records: organisations, users, workers', async () => {
    await prune();
    expect(await dataSource.query(`SELECT (SELECT count(*) FROM directory.organisation)::int AS o, (SELECT count(*) FROM directory.portal_user)::int AS u, (SELECT count(*) FROM directory.worker)::int AS w`)).toEqual([{ o: 1, u: 1, w: 1 }]);
  });
});
