import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { EventSubject, type OfferCreatedEvent, type OfferTimeSlot } from '@availability/contracts';
import { INSERT_OFFER_SQL, insertOfferParams, type NewOffer, SELECT_OFFER_JSON_SQL } from '@availability/offers-api/sql';
import { required } from './process-env.js';

/**
 * The least a server can do for POST /offer and GET /offer/:id: Fastify + pg running offers-api's own
 * statements, without auth, validation, directory or framework. The benchmark's yardstick for what
 * the machine and Postgres allow. Started as its own process by the benchmark.
 *
 * Statements are prepared once per connection (named), as offers-api runs them (`runPrepared`).
 *
 * Env: DATABASE_URL, PORT, ORGANISATION_ID (fixed tenant), WORKER_NAMES (JSON {workerId: name}),
 * DATABASE_POOL_SIZE (default 20, as offers-api), OFFERS_SCHEMA (where it writes offers: a copy of
 * offers-api's tables, so that offers-api's relay, running beside it, never publishes its rows;
 * default `offers`). It reads offers from offers-api's own tables.
 */
const organisationId = required('ORGANISATION_ID');
const schema = process.env.OFFERS_SCHEMA ?? 'offers';
// offers-api's statement, its three tables named in the baseline's schema. The copies draw recipient
// ids from offers-api's own sequence (LIKE … INCLUDING ALL keeps the default), so it stays named.
const insertOfferSql = INSERT_OFFER_SQL.replaceAll('offers.offer ', `${schema}.offer `)
  .replaceAll('offers.recipient ', `${schema}.recipient `)
  .replaceAll('"offers".outbox', `"${schema}".outbox`);
if (schema !== 'offers' && /offers\.(?!recipient_id_seq\b)|"offers"/.test(insertOfferSql)) throw new Error(`offers-api's INSERT_OFFER names a table this baseline does not move to ${schema}`);
const workerNames = JSON.parse(process.env.WORKER_NAMES ?? '{}') as Record<string, string>;
const pool = new pg.Pool({
  connectionString: required('DATABASE_URL'),
  max: Number(process.env.DATABASE_POOL_SIZE ?? 20),
  application_name: 'bench-baseline',
});

interface OfferBody {
  createdByUserId: string;
  title: string;
  details?: string;
  locationPlaceId?: string;
  notifyEmailAddress?: string;
  workerIds: string[];
  events: OfferTimeSlot[];
}

const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });

app.get('/health/live', async () => ({ status: 'ok' }));

app.post('/offer', async (request, reply) => {
  const body = request.body as OfferBody;
  const offer: NewOffer = {
    id: randomUUID(),
    organisationId,
    createdByUserId: body.createdByUserId,
    title: body.title,
    details: body.details ?? '',
    locationPlaceId: body.locationPlaceId ?? '',
    notifyEmailAddress: body.notifyEmailAddress ?? null,
    events: body.events,
    endsAt: new Date(Math.max(...body.events.map((slot) => Date.parse(slot.end)))),
    recipients: body.workerIds.map((workerId) => ({ workerId, name: workerNames[workerId] ?? workerId })),
  };
  // The same event offers-api writes, so the outbox row has the same size.
  const event: OfferCreatedEvent = {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    organisationId,
    offerId: offer.id,
    title: offer.title,
    createdByUserId: offer.createdByUserId,
    notifyEmailAddress: offer.notifyEmailAddress,
    events: offer.events,
    workerIds: body.workerIds,
  };
  const values = insertOfferParams(offer, { eventId: event.eventId, subject: EventSubject.OfferCreated, payload: JSON.stringify(event) });
  await pool.query({ name: 'bench.insert-offer', text: insertOfferSql, values });
  return reply.code(201).header('location', `/offer/${offer.id}`).type('text/plain; charset=utf-8').send(offer.id);
});

app.get<{ Params: { id: string } }>('/offer/:id', async (request, reply) => {
  const { rows } = await pool.query<{ body: string }>({
    name: 'bench.select-offer-json',
    text: SELECT_OFFER_JSON_SQL,
    values: [request.params.id, organisationId],
  });
  if (rows.length === 0) return reply.code(404).send();
  return reply.type('application/json; charset=utf-8').send(rows[0].body);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3999) });

