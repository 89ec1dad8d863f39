import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { DIRECTORY_SCHEMA } from '../src/directory/directory.repository.js';
import { DIRECTORY_MIGRATIONS } from '../src/migrations/index.js';
import { PortalRepository } from '../src/portal/portal.repository.js';

/** Invitations written on real PostgreSQL by two requests at once (two instances, or two tabs of the portal). */
let database: TestDatabase;
const pools: DataSource[] = [];
const organisationId = randomUUID();
const userId = randomUUID();

beforeAll(async () => {
  database = await createTestDatabase();
  for (const name of ['invitations-a', 'invitations-b']) {
    pools.push(await createDataSource({ url: database.url, schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS, poolSize: 2, applicationName: name }).initialize());
  }
  await migrate(pools[0], DIRECTORY_SCHEMA);
  await pools[0].query(`INSERT INTO directory.organisation (id, name, kind) VALUES ($1, 'Busy Inviter', 'hirer')`, [organisationId]);
  await pools[0].query(`INSERT INTO directory.portal_user (id, organisation_id, email, name, role) VALUES ($1, $2, 'admin@busy.example', 'Admin', 'admin')`, [userId, organisationId]);
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.destroy()));
  await database?.drop();
});

describe('invitations written at once', () => {
  it('two requests inviting the same people in opposite orders both finish, and agree on one invitation each', async () => {
    const [mine, theirs] = pools.map((pool) => new PortalRepository(pool));
    for (let round = 0; round < 5; round++) {
      const people = Array.from({ length: 100 }, (_, i) => ({ id: randomUUID(), name: `Person ${i}`, email: `person.${round}.${i}@example.com`, suggestedByOrganisationId: null }));
      const invite = (repository: PortalRepository, invitations: typeof people) =>
        repository.transaction((manager) => repository.insertInvitations(manager, organisationId, userId, invitations.map((p) => ({ ...p, id: randomUUID() }))));
      const [a, b] = await Promise.all([invite(mine, people), invite(theirs, [...people].reverse())]);
      const bInOrder = [...b].reverse();
      expect(a.filter((invitation, i) => invitation.id !== bInOrder[i].id || invitation.created === bInOrder[i].created)).toEqual([]);
    }
  });
});
