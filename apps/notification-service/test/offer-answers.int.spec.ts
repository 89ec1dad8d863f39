import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { OfferResponseRecordedEvent } from '@availability/contracts';
import { createDataSource, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase } from '@availability/testing';
import { NOTIFICATIONS_SCHEMA } from '../src/devices/devices.repository.js';
import { EmailRepository } from '../src/email/email.repository.js';
import { NOTIFICATIONS_MIGRATIONS } from '../src/migrations/index.js';

/** Answers remembered for the digests, on real PostgreSQL, as two instances write them. */
let database: TestDatabase;
const pools: DataSource[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  for (const name of ['offer-answers-a', 'offer-answers-b']) {
    pools.push(await createDataSource({ url: database.url, schema: NOTIFICATIONS_SCHEMA, migrations: NOTIFICATIONS_MIGRATIONS, poolSize: 2, applicationName: name }).initialize());
  }
  await migrate(pools[0], NOTIFICATIONS_SCHEMA);
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.destroy()));
  await database?.drop();
});

function answer(offerId: string): OfferResponseRecordedEvent {
  const at = new Date().toISOString();
  return { eventId: randomUUID(), occurredAt: at, organisationId: randomUUID(), offerId, workerId: randomUUID(), response: 'applied', previousResponse: 'awaiting', respondedAt: at };
}

describe('answers recorded for the digests', () => {
  it('two instances recording the same answers at once, in opposite orders, both finish and record each once', async () => {
    // Two instances read the same answers when JetStream redelivers ones whose ack was late: their batches may hold them in any order.
    const [mine, theirs] = pools.map((pool) => new EmailRepository(pool));
    const offerId = randomUUID();
    const all: string[] = [];
    for (let round = 0; round < 5; round++) {
      const answers = Array.from({ length: 200 }, () => answer(offerId));
      await Promise.all([mine.recordAnswers(answers), theirs.recordAnswers([...answers].reverse())]);
      all.push(...answers.map((a) => a.eventId));
    }
    const rows: Array<{ count: number }> = await pools[0].query(`SELECT count(*)::int AS count FROM ${NOTIFICATIONS_SCHEMA}.offer_answer WHERE event_id = ANY($1::uuid[])`, [all]);
    expect(rows[0].count).toBe(all.length);
  });
});
