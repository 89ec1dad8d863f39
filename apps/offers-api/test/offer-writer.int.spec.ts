import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@availability/service-core';
import { DatabaseProxy, createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { OFFERS_MIGRATIONS } from '../src/migrations/index.js';
import { type OfferWrite, OfferWriter, writtenAlready } from '../src/offers/offer-writer.js';
import { INSERT_OFFERS, OFFERS_SCHEMA, OffersRepository } from '../src/offers/offers.repository.js';

/** Offers written together on real PostgreSQL: each stored whole, as one written alone would be, or not at all. */
let database: TestDatabase;
let dataSource: DataSource;
let repository: OffersRepository;
const organisationId = randomUUID();

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = await createDataSource({ url: database.url, schema: OFFERS_SCHEMA, migrations: OFFERS_MIGRATIONS, poolSize: 4, applicationName: 'offer-writer-spec' }).initialize();
  await migrate(dataSource, OFFERS_SCHEMA);
  repository = new OffersRepository(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

/** An offer to `workers` new workers, named in an order no id sort would give. */
function offerWrite(title: string, workers: number): OfferWrite {
  const workerIds = Array.from({ length: workers }, () => randomUUID()).sort().reverse();
  const id = randomUUID();
  const eventId = randomUUID();
  return {
    offer: {
      id,
      organisationId,
      createdByUserId: 'user-1',
      title,
      details: `details of ${title}`,
      locationPlaceId: 'place-1',
      notifyEmailAddress: title === 'with notify' ? 'ops@acme.test' : null,
      events: [{ start: '2030-01-01T22:00:00.000Z', end: '2030-01-02T06:00:00.000Z' }],
      endsAt: new Date('2030-01-02T06:00:00.000Z'),
      recipients: workerIds.map((workerId, i) => ({ workerId, name: `Worker ${i} of ${title}` })),
    },
    event: { eventId, subject: 'offers.created', payload: JSON.stringify({ eventId, offerId: id, title }), requestId: `req-${title}` },
  };
}

async function stored(write: OfferWrite) {
  const [offer] = await queryDatabase<{ title: string; details: string; notify_email_address: string | null; events: unknown; ends_at: Date }>(
    database.url,
    'SELECT title, details, notify_email_address, events, ends_at FROM offers.offer WHERE id = $1',
    [write.offer.id],
  );
  const recipients = await queryDatabase<{ id: string; worker_id: string; name: string }>(database.url, 'SELECT id, worker_id, name FROM offers.recipient WHERE offer_id = $1 ORDER BY id', [write.offer.id]);
  const outbox = await queryDatabase<{ subject: string; payload: unknown; trace_id: string }>(database.url, 'SELECT subject, payload, trace_id FROM offers.outbox WHERE event_id = $1', [write.event.eventId]);
  return { offer, recipients, outbox };
}

function expectStoredAsWritten(write: OfferWrite, { offer, recipients, outbox }: Awaited<ReturnType<typeof stored>>): void {
  expect(offer).toEqual({
    title: write.offer.title,
    details: write.offer.details,
    notify_email_address: write.offer.notifyEmailAddress,
    events: write.offer.events,
    ends_at: write.offer.endsAt,
  });
  // Ids drawn in the order the request named the workers.
  expect(recipients.map((r) => [r.worker_id, r.name])).toEqual(write.offer.recipients.map((r) => [r.workerId, r.name]));
  expect(outbox).toEqual([{ subject: 'offers.created', payload: JSON.parse(write.event.payload), trace_id: write.event.requestId }]);
}

describe('offers written together', () => {
  it('one statement stores each offer, its recipients in the order named and its event, as written alone', async () => {
    const writes = [offerWrite('first', 3), offerWrite('with notify', 12), offerWrite('third', 1)];
    await repository.insertOffers(writes);
    for (const write of writes) expectStoredAsWritten(write, await stored(write));
    // Every recipient id is new and each offer's ids rise in its own order.
    const ids = (await Promise.all(writes.map(stored))).flatMap((s) => s.recipients.map((r) => Number(r.id)));
    expect(new Set(ids).size).toBe(16);
  });

  it('concurrent writes share statements; one the database refuses fails alone', async () => {
    const writer = new OfferWriter(repository);
    const writes = Array.from({ length: 40 }, (_, i) => offerWrite(`offer ${i}`, 1 + (i % 5)));
    const refused = offerWrite('x'.repeat(201), 2); // the column holds 200 characters
    const outcomes = await Promise.allSettled([...writes.slice(0, 20), refused, ...writes.slice(20)].map((write) => writer.write(write)));
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
    expect((outcomes[20] as PromiseRejectedResult).reason.message).toMatch(/too long/);
    for (const write of writes) expectStoredAsWritten(write, await stored(write));
    const left = await stored(refused);
    expect([left.offer, left.recipients, left.outbox]).toEqual([undefined, [], []]);
  });

  it('knows the error of an offer written twice for what it is', async () => {
    const write = offerWrite('twice', 2);
    await repository.insertOffers([write]);
    const error = await repository.insertOffers([write]).catch((caught: unknown) => caught);
    expect(writtenAlready(error)).toBe(true);
    expect(writtenAlready(await repository.insertOffers([offerWrite('y'.repeat(201), 1)]).catch((caught: unknown) => caught))).toBe(false);
  });

  it('offers whose shared statement committed but whose answer was lost are each answered as written, once', async () => {
    // The connection drops between PostgreSQL's commit and its answer reaching offers-api.
    const proxy = await DatabaseProxy.start(database.url);
    const throughProxy = await createDataSource({ url: proxy.urlFor(database.url), schema: OFFERS_SCHEMA, migrations: OFFERS_MIGRATIONS, poolSize: 4, applicationName: 'offer-writer-lost-answer' }).initialize();
    try {
      const writer = new OfferWriter(new OffersRepository(throughProxy));
      const writes = Array.from({ length: 5 }, (_, i) => offerWrite(`lost answer ${i}`, 1 + i));
      const dropped = proxy.dropAnswerTo(INSERT_OFFERS.name);
      const outcomes = await Promise.allSettled(writes.map((write) => writer.write(write)));
      await dropped; // the shared statement ran, committed, and its answer was lost
      expect(outcomes.map((o) => o.status)).toEqual(writes.map(() => 'fulfilled'));
      for (const write of writes) expectStoredAsWritten(write, await stored(write));
    } finally {
      await throughProxy.destroy();
      await proxy.stop();
    }
  });
});
