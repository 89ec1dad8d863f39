import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { DIRECTORY_SCHEMA } from '../src/directory/directory.repository.js';
import { DIRECTORY_MIGRATIONS } from '../src/migrations/index.js';
import { InvitationsSentRepository } from '../src/invitations/invitations-sent.repository.js';
import { PortalRepository } from '../src/portal/portal.repository.js';

/** Invitations written and counted on real PostgreSQL by requests at once (two instances, or two tabs of the portal). */
let database: TestDatabase;
const pools: DataSource[] = [];
const organisationId = randomUUID();
const userId = randomUUID();

beforeAll(async () => {
  database = await createTestDatabase();
  for (const name of ['invitations-a', 'invitations-b']) {
    pools.push(await createDataSource({ url: database.url, schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS, poolSize: 5, applicationName: name }).initialize());
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

describe('invitations counted at once', () => {
  it("requests on two instances at once never count past the day's allowance, and a refused one counts nothing", async () => {
    const sent = new InvitationsSentRepository();
    const max = 50;
    for (const day of ['2026-03-01', '2026-03-02']) {
      // Twenty requests of 1 to 9 invitations each, half on each instance: more than the day allows.
      const sizes = Array.from({ length: 20 }, (_, i) => 1 + ((i * 7) % 9));
      const taken = await Promise.all(
        sizes.map((size, i) => pools[i % 2].transaction('READ COMMITTED', (manager) => sent.take(manager, organisationId, day, size, max))),
      );
      const counted = sizes.filter((_, i) => taken[i].taken).reduce((sum, size) => sum + size, 0);
      const rows = await pools[0].query(`SELECT sent FROM directory.invitations_sent WHERE organisation_id = $1 AND day = $2`, [organisationId, day]);
      expect(rows).toEqual([{ sent: counted }]);
      expect(counted).toBeLessThanOrEqual(max);
      // Whoever was refused saw a total that left too little room for its request.
      taken.forEach((result, i) => {
        if (!result.taken) expect(result.sent + sizes[i]).toBeGreaterThan(max);
      });
      expect(sizes.filter((_, i) => !taken[i].taken).length).toBeGreaterThan(0);
    }
    // One request alone past the allowance counts nothing, even on a day with no count yet.
    expect(await pools[0].transaction((manager) => sent.take(manager, organisationId, '2026-03-03', max + 1, max))).toEqual({ taken: false, sent: 0 });
    // Days before yesterday are forgotten as days are counted.
    const days = await pools[0].query(`SELECT day::text FROM directory.invitations_sent WHERE organisation_id = $1 ORDER BY day`, [organisationId]);
    expect(days.map((row: { day: string }) => row.day)).toEqual(['2026-03-02']);
    await pools[0].transaction((manager) => sent.take(manager, organisationId, '2026-03-04', 1, max));
    const later = await pools[0].query(`SELECT day::text FROM directory.invitations_sent WHERE organisation_id = $1 ORDER BY day`, [organisationId]);
    expect(later.map((row: { day: string }) => row.day)).toEqual(['2026-03-04']);
  });
});
