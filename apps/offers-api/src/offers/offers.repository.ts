import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { OfferTimeSlot, WorkerAnswer, WorkerOfferView } from '@availability/contracts';
import { type OutboxMessage, outboxTable } from '@availability/messaging';
import { type PreparedStatement, runPrepared } from '@availability/service-core';
import type { OfferState } from './offer-rules.js';
import type { AnswerEvent } from './answer-event.js';

export const OFFERS_SCHEMA = 'offers';

export interface NewOffer {
  id: string;
  organisationId: string;
  createdByUserId: string;
  title: string;
  details: string;
  locationPlaceId: string;
  notifyEmailAddress: string | null;
  events: OfferTimeSlot[];
  endsAt: Date;
  recipients: Array<{ workerId: string; name: string }>;
}

export interface LockedOffer extends OfferState {
  id: string;
  organisationId: string;
  title: string;
}

/**
 * Offer, recipients and outbox row in one statement: one round trip, atomic, no explicit transaction.
 * Recipients travel as one JSON array of `[workerId, name]` pairs, which PostgreSQL reads in half the
 * time of two array parameters (10,000 recipients: about 5 ms against 10).
 * Their ids are drawn in the request's order (nextval runs after the inner sort), and the rows are
 * then written in worker id order: the primary key's new entries fill its pages one after another
 * instead of splitting them at random: a third of the write-ahead log for an offer to 10,000 workers,
 * and less time (docs/benchmarks.md, 27 November, night).
 */
export const INSERT_OFFER: PreparedStatement = { name: 'offers.insert-offer', text: `
WITH new_offer AS (
  INSERT INTO offers.offer (id, organisation_id, created_by_user_id, title, details, location_place_id,
                            notify_email_address, events, ends_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)
), new_recipients AS (
  INSERT INTO offers.recipient (id, offer_id, worker_id, name)
  SELECT r.id, $1, r.worker_id, r.name FROM (
    SELECT nextval('offers.recipient_id_seq') AS id, (w.pair->>0)::uuid AS worker_id, w.pair->>1 AS name
    FROM json_array_elements($10::json) WITH ORDINALITY AS w(pair, n) ORDER BY w.n
  ) r ORDER BY r.worker_id
)
INSERT INTO ${outboxTable(OFFERS_SCHEMA)} (event_id, subject, payload, trace_id, traceparent) VALUES ($11, $12, $13::json, $14, $15)` };
export const INSERT_OFFER_SQL = INSERT_OFFER.text;

/**
 * Several offers, each with its recipients and outbox row, in one statement and one commit: the
 * offers concurrent requests write at once (OfferWriter). They travel as one JSON array, in order
 * (`n`); recipient ids are drawn offer by offer in each request's order and the rows written in worker
 * id order, as INSERT_OFFER does. A single offer costs PostgreSQL a fifth more this way than with
 * INSERT_OFFER, and eight cost it 40 % less each (docs/benchmarks.md, 28 November, night).
 */
export const INSERT_OFFERS: PreparedStatement = { name: 'offers.insert-offers', text: `
WITH input AS (
  SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (id uuid, organisation_id uuid, created_by_user_id text, title text,
    details text, location_place_id text, notify_email_address text, events jsonb, ends_at timestamptz, recipients json,
    event_id uuid, subject text, payload text, trace_id text, traceparent text)) WITH ORDINALITY
    AS x(id, organisation_id, created_by_user_id, title, details, location_place_id, notify_email_address, events, ends_at,
         recipients, event_id, subject, payload, trace_id, traceparent, n)
), new_offers AS (
  INSERT INTO offers.offer (id, organisation_id, created_by_user_id, title, details, location_place_id,
                            notify_email_address, events, ends_at)
  SELECT id, organisation_id, created_by_user_id, title, details, location_place_id, notify_email_address, events, ends_at
  FROM input ORDER BY n
), new_recipients AS (
  INSERT INTO offers.recipient (id, offer_id, worker_id, name)
  SELECT r.id, r.offer_id, r.worker_id, r.name FROM (
    SELECT nextval('offers.recipient_id_seq') AS id, i.id AS offer_id, (w.pair->>0)::uuid AS worker_id, w.pair->>1 AS name
    FROM input i, json_array_elements(i.recipients) WITH ORDINALITY AS w(pair, k) ORDER BY i.n, w.k
  ) r ORDER BY r.offer_id, r.worker_id
)
INSERT INTO ${outboxTable(OFFERS_SCHEMA)} (event_id, subject, payload, trace_id, traceparent)
SELECT event_id, subject, payload::json, trace_id, traceparent FROM input ORDER BY n` };

/** Spec 2.3's fields of an offer but its recipients, as json_build_object arguments (both views of an offer). */
const OFFER_FIELDS_JSON = `  'id', o.id,
  'title', o.title,
  'details', o.details,
  'isHistoric', o.is_historic OR o.ends_at <= now(),
  'widthdrawn', o.widthdrawn,
  'complete', o.complete,
  'locationPlaceId', o.location_place_id,
  'createdAt', to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'events', o.events,`;

/** The offer exactly as spec 2.3 shapes it, built by Postgres as JSON text (no parse/serialise in Node). */
export const SELECT_OFFER_JSON: PreparedStatement = { name: 'offers.select-offer-json', text: `
SELECT o.version, o.ends_at AS "endsAt", o.is_historic OR o.ends_at <= now() AS "isHistoric", json_build_object(
${OFFER_FIELDS_JSON}
  'recipients', COALESCE((
    SELECT json_agg(json_build_object('id', r.id, 'workerId', r.worker_id, 'name', r.name,
                                      'response', r.response, 'confirmation', r.confirmation) ORDER BY r.id)
    FROM offers.recipient r WHERE r.offer_id = o.id), '[]'::json)
)::text AS body
FROM offers.offer o
WHERE o.id = $1 AND o.organisation_id = $2` };
export const SELECT_OFFER_JSON_SQL = SELECT_OFFER_JSON.text;

/** Where an offer stands (PortalOfferStatus), from its flags and the clock. */
const OFFER_STATUS_SQL = `CASE WHEN o.widthdrawn THEN 'withdrawn' WHEN o.complete THEN 'complete' WHEN o.ends_at <= now() THEN 'ended' ELSE 'open' END`;

/** The condition of each status filter of the portal's list, the same rule as OFFER_STATUS_SQL. */
const OFFER_STATUS_FILTERS: Record<string, string> = {
  open: 'NOT o.widthdrawn AND NOT o.complete AND o.ends_at > now()',
  ended: 'NOT o.widthdrawn AND NOT o.complete AND o.ends_at <= now()',
  complete: 'o.complete',
  withdrawn: 'o.widthdrawn',
};

/**
 * The offer as the portal shows it: spec 2.3 as SELECT_OFFER_JSON builds it, plus its status and, per
 * recipient, when the answer was given. A recipient's name is left out when the directory gave none.
 */
const SELECT_PORTAL_OFFER_JSON: PreparedStatement = { name: 'offers.select-portal-offer-json', text: `
SELECT o.version, o.ends_at AS "endsAt", o.is_historic OR o.ends_at <= now() AS "isHistoric", json_build_object(
${OFFER_FIELDS_JSON}
  'recipients', COALESCE((
    SELECT json_agg(jsonb_build_object('id', r.id, 'workerId', r.worker_id, 'response', r.response,
                                       'respondedAt', to_char(r.responded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                       'confirmation', r.confirmation)
                    || CASE WHEN r.name <> '' THEN jsonb_build_object('name', r.name) ELSE '{}'::jsonb END ORDER BY r.id)
    FROM offers.recipient r WHERE r.offer_id = o.id), '[]'::json),
  'status', ${OFFER_STATUS_SQL}
)::text AS body
FROM offers.offer o
WHERE o.id = $1 AND o.organisation_id = $2` };

/** What a portal reader's entity tag is made of; like SELECT_OFFER_VERSION, only the organisation's own offer. */
const SELECT_PORTAL_OFFER_VERSION: PreparedStatement = {
  name: 'offers.select-portal-offer-version',
  text: `SELECT version, is_historic OR ends_at <= now() AS historic FROM offers.offer WHERE id = $1 AND organisation_id = $2`,
};

/** The cheap question a cached GET asks: does the offer exist for this organisation, and at which version. */
const SELECT_OFFER_VERSION: PreparedStatement = {
  name: 'offers.select-offer-version',
  text: `SELECT version FROM offers.offer WHERE id = $1 AND organisation_id = $2`,
};

/**
 * A worker's answer in one statement (one round trip, its own transaction): lock the offer and the
 * worker's entry, and only if the offer is open and the answer differs, record it, bump the offer's
 * version (cached documents of it are now stale), count the recipient's answers (the event's `sequence`,
 * which lets an integrator drop an answer that arrives after a newer one) and write the `offers.response.recorded` event
 * (OfferResponseRecordedEvent, checked by `answerEvent` before it runs) to the outbox. Answers to one offer queue on its row lock, so holding it for one statement instead of
 * a transaction's worth of round trips is what lets a popular offer take many answers a second.
 * Returns the state found, for the caller to explain a refusal, and the event written, when it changed.
 */
const ANSWER: PreparedStatement = {
  name: 'offers.answer',
  // Every parameter is cast to one type wherever it appears: Postgres deduces one type per parameter.
  text: `WITH target AS (
           SELECT o.id, o.organisation_id, o.widthdrawn, o.complete, o.ends_at <= now() AS ended, r.response,
                  o.title, o.details, o.location_place_id, o.is_historic, o.created_at, o.events, r.confirmation
           FROM offers.offer o JOIN offers.recipient r ON r.offer_id = o.id AND r.worker_id = $2::uuid
           WHERE o.id = $1::uuid FOR UPDATE
         ), answered AS (
           UPDATE offers.recipient r SET response = $3::text, responded_at = $4::timestamptz, answer_sequence = r.answer_sequence + 1
           FROM target t
           WHERE r.offer_id = t.id AND r.worker_id = $2::uuid
             AND NOT t.widthdrawn AND NOT t.complete AND NOT t.ended AND t.response <> $3::text
           RETURNING t.organisation_id, t.response AS previous, r.answer_sequence AS sequence
         ), bumped AS (
           UPDATE offers.offer SET version = version + 1, updated_at = $4::timestamptz
           WHERE id = $1::uuid AND EXISTS (SELECT FROM answered)
         ), event AS (
           INSERT INTO ${outboxTable(OFFERS_SCHEMA)} (event_id, subject, payload, trace_id, traceparent)
           SELECT $5::uuid, $6::text, json_build_object(
             'eventId', $5::uuid, 'occurredAt', $7::text, 'organisationId', a.organisation_id,
             'offerId', $1::uuid, 'workerId', $2::uuid, 'response', $3::text, 'previousResponse', a.previous, 'respondedAt', $7::text,
             'sequence', a.sequence
           ), $8::text, $9::text
           FROM answered a
           RETURNING payload::text
         )
         SELECT t.organisation_id AS "organisationId", t.widthdrawn, t.complete, t.ended, t.response,
                (SELECT payload FROM event) AS "eventPayload",
                -- The offer as the worker now sees it (the statement's snapshot predates its own update);
                -- json, not jsonb, keeps the keys in the order of the other worker routes.
                json_build_object(
                  'id', t.id, 'organisationId', t.organisation_id, 'title', t.title, 'details', t.details, 'locationPlaceId', t.location_place_id,
                  'isHistoric', t.is_historic OR t.ended, 'widthdrawn', t.widthdrawn, 'complete', t.complete,
                  'createdAt', to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'events', t.events,
                  'response', CASE WHEN EXISTS (SELECT FROM answered) THEN $3::text ELSE t.response END, 'confirmation', t.confirmation
                ) AS view
         FROM target t`,
};

/** The statements every connection prepares: their plans are made once, on tables that may still be empty (test/prepared-plans). */
export const OFFER_STATEMENTS = [INSERT_OFFER, INSERT_OFFERS, SELECT_OFFER_JSON, SELECT_PORTAL_OFFER_JSON, SELECT_PORTAL_OFFER_VERSION, SELECT_OFFER_VERSION, ANSWER];

export interface AnswerOutcome extends OfferState {
  organisationId: string;
  /** The answer before this one. */
  response: string;
  /** The event the answer wrote to the outbox, as written; null when nothing was recorded. */
  eventPayload: string | null;
  /** The offer as the worker sees it after the answer, so the route needs no second statement. */
  view: WorkerOfferView;
}

export interface OfferDocument {
  version: number;
  endsAt: Date;
  isHistoric: boolean;
  body: string;
}

/** One offer of the portal's list, with what its cursor needs. */
export interface PortalOfferRow {
  id: string;
  title: string;
  status: 'open' | 'ended' | 'complete' | 'withdrawn';
  createdAt: string;
  /** created_at in microseconds since the epoch (bigint, as text). */
  createdAtMicros: string;
  recipientCount: number;
  applied: number;
  rejected: number;
  none: number;
}

export interface PortalOffersFilter {
  status?: string;
  /** Rows after this (created_at, id), newest first; created_at as a timestamp with microseconds. */
  before?: { createdAt: string; id: string };
  limit: number;
}

/** INSERT_OFFERS's one parameter: the offers and their events, as JSON text. */
export function insertOffersParam(offers: ReadonlyArray<{ offer: NewOffer; event: OutboxMessage }>): string {
  return JSON.stringify(
    offers.map(({ offer, event }) => ({
      id: offer.id,
      organisation_id: offer.organisationId,
      created_by_user_id: offer.createdByUserId,
      title: offer.title,
      details: offer.details,
      location_place_id: offer.locationPlaceId,
      notify_email_address: offer.notifyEmailAddress,
      events: offer.events,
      ends_at: offer.endsAt,
      recipients: offer.recipients.map((r) => [r.workerId, r.name]),
      event_id: event.eventId,
      subject: event.subject,
      payload: event.payload,
      trace_id: event.requestId ?? null,
      traceparent: event.traceparent ?? null,
    })),
  );
}

export function insertOfferParams(offer: NewOffer, event: OutboxMessage): unknown[] {
  return [
    offer.id,
    offer.organisationId,
    offer.createdByUserId,
    offer.title,
    offer.details,
    offer.locationPlaceId,
    offer.notifyEmailAddress,
    JSON.stringify(offer.events),
    offer.endsAt,
    JSON.stringify(offer.recipients.map((r) => [r.workerId, r.name])),
    event.eventId,
    event.subject,
    event.payload,
    event.requestId ?? null,
    event.traceparent ?? null,
  ];
}

const STATE_COLUMNS = `o.id, o.organisation_id AS "organisationId", o.title, o.widthdrawn, o.complete, o.ends_at <= now() AS ended`;

/** An offer as the worker app shows it, with the worker's answer (`o` the offer, `r` the recipient). */
const WORKER_OFFER_COLUMNS = `o.id, o.organisation_id AS "organisationId", o.title, o.details, o.location_place_id AS "locationPlaceId",
  o.is_historic OR o.ends_at <= now() AS "isHistoric", o.widthdrawn, o.complete,
  to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
  o.events, r.response, r.confirmation`;

/** Every SQL statement offers-api runs lives here. */
@Injectable()
export class OffersRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', work);
  }

  async insertOffer(offer: NewOffer, event: OutboxMessage, manager?: EntityManager): Promise<void> {
    await runPrepared(manager ?? this.dataSource, INSERT_OFFER, insertOfferParams(offer, event));
  }

  /** Offers written together (all or none): one alone by INSERT_OFFER, several by INSERT_OFFERS. */
  async insertOffers(offers: ReadonlyArray<{ offer: NewOffer; event: OutboxMessage }>): Promise<void> {
    if (offers.length === 1) return this.insertOffer(offers[0].offer, offers[0].event);
    if (offers.length > 1) await runPrepared(this.dataSource, INSERT_OFFERS, [insertOffersParam(offers)]);
  }

  async offerVersion(organisationId: string, offerId: string): Promise<number | undefined> {
    const rows = await runPrepared<{ version: number }>(this.dataSource, SELECT_OFFER_VERSION, [offerId, organisationId]);
    return rows[0]?.version;
  }

  async offerDocument(organisationId: string, offerId: string): Promise<OfferDocument | undefined> {
    const rows = await runPrepared<OfferDocument>(this.dataSource, SELECT_OFFER_JSON, [offerId, organisationId]);
    return rows[0];
  }

  async portalOfferVersion(organisationId: string, offerId: string): Promise<{ version: number; historic: boolean } | undefined> {
    const rows = await runPrepared<{ version: number; historic: boolean }>(this.dataSource, SELECT_PORTAL_OFFER_VERSION, [offerId, organisationId]);
    return rows[0];
  }

  async portalOfferDocument(organisationId: string, offerId: string): Promise<OfferDocument | undefined> {
    const rows = await runPrepared<OfferDocument>(this.dataSource, SELECT_PORTAL_OFFER_JSON, [offerId, organisationId]);
    return rows[0];
  }

  /**
   * The organisation's offers, newest first, with their answer counts: one range scan of
   * offer_organisation_page from the cursor on (the status filter is checked on the rows it reads),
   * and the counts only for the rows of the page. The statement's text depends only on which
   * filters are given, never on their values.
   */
  portalOffers(organisationId: string, filter: PortalOffersFilter): Promise<PortalOfferRow[]> {
    const params: unknown[] = [organisationId, filter.limit];
    const conditions = ['o.organisation_id = $1'];
    if (filter.status !== undefined) {
      const condition = OFFER_STATUS_FILTERS[filter.status];
      if (!condition) throw new Error(`unknown offer status filter ${filter.status}`);
      conditions.push(condition);
    }
    if (filter.before) {
      params.push(filter.before.createdAt, filter.before.id);
      conditions.push('(o.created_at, o.id) < ($3::timestamptz, $4::uuid)');
    }
    return this.dataSource.query(
      `SELECT o.id, o.title, ${OFFER_STATUS_SQL} AS status,
              to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
              (extract(epoch FROM o.created_at) * 1000000)::bigint::text AS "createdAtMicros",
              c.total AS "recipientCount", c.applied, c.rejected, c.total - c.applied - c.rejected AS none
       FROM offers.offer o
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS total,
                (count(*) FILTER (WHERE r.response = 'applied'))::int AS applied,
                (count(*) FILTER (WHERE r.response = 'rejected'))::int AS rejected
         FROM offers.recipient r WHERE r.offer_id = o.id
       ) c
       WHERE ${conditions.join(' AND ')}
       ORDER BY o.created_at DESC, o.id DESC
       LIMIT $2`,
      params,
    );
  }

  /** Locks the offer against concurrent complete/withdraw/answers until the transaction ends. */
  async lockForSender(manager: EntityManager, organisationId: string, offerId: string): Promise<LockedOffer | undefined> {
    const rows: LockedOffer[] = await manager.query(
      `SELECT ${STATE_COLUMNS} FROM offers.offer o WHERE o.id = $1 AND o.organisation_id = $2 FOR UPDATE`,
      [offerId, organisationId],
    );
    return rows[0];
  }

  recipients(manager: EntityManager, offerId: string): Promise<Array<{ workerId: string; response: string }>> {
    return manager.query(`SELECT worker_id AS "workerId", response FROM offers.recipient WHERE offer_id = $1 ORDER BY id`, [offerId]);
  }

  async markComplete(manager: EntityManager, offerId: string, successful: string[]): Promise<void> {
    await manager.query(
      `UPDATE offers.recipient SET confirmation = CASE WHEN worker_id = ANY($2::uuid[]) THEN 'successful' ELSE 'unsuccessful' END
       WHERE offer_id = $1`,
      [offerId, successful],
    );
    await manager.query(`UPDATE offers.offer SET complete = true, is_historic = true, version = version + 1, updated_at = now() WHERE id = $1`, [offerId]);
  }

  async markWithdrawn(manager: EntityManager, offerId: string): Promise<string[]> {
    // A CTE, because a bare UPDATE … RETURNING comes back from TypeORM as [rows, count].
    const rows: Array<{ workerId: string }> = await manager.query(
      `WITH withdrawn AS (UPDATE offers.recipient SET confirmation = 'withdrawn' WHERE offer_id = $1 RETURNING id, worker_id)
       SELECT worker_id AS "workerId" FROM withdrawn ORDER BY id`,
      [offerId],
    );
    await manager.query(`UPDATE offers.offer SET widthdrawn = true, is_historic = true, version = version + 1, updated_at = now() WHERE id = $1`, [offerId]);
    return rows.map((row) => row.workerId);
  }

  /**
   * Records a worker's answer if the offer is open and the answer is new (see ANSWER); undefined
   * when the worker is not a recipient of the offer.
   */
  async answer(offerId: string, workerId: string, response: WorkerAnswer, event: AnswerEvent): Promise<AnswerOutcome | undefined> {
    const rows = await runPrepared<AnswerOutcome>(this.dataSource, ANSWER, [
      offerId,
      workerId,
      response,
      event.at,
      event.eventId,
      event.subject,
      event.at,
      event.requestId ?? null,
      event.traceparent ?? null,
    ]);
    return rows[0];
  }

  /** The worker's offers, newest first, paged by recipient id (which grows with creation time). */
  async workerOffers(workerId: string, limit: number, before?: number): Promise<Array<WorkerOfferView & { cursor: number }>> {
    return this.dataSource.query(
      `SELECT ${WORKER_OFFER_COLUMNS}, r.id AS cursor
       FROM offers.recipient r JOIN offers.offer o ON o.id = r.offer_id
       WHERE r.worker_id = $1 AND ($3::bigint IS NULL OR r.id < $3)
       ORDER BY r.id DESC LIMIT $2`,
      [workerId, limit, before ?? null],
    );
  }

  async workerOffer(workerId: string, offerId: string): Promise<WorkerOfferView | undefined> {
    const rows: Array<WorkerOfferView & { cursor?: number }> = await this.dataSource.query(
      `SELECT ${WORKER_OFFER_COLUMNS}
       FROM offers.recipient r JOIN offers.offer o ON o.id = r.offer_id
       WHERE r.worker_id = $1 AND r.offer_id = $2`,
      [workerId, offerId],
    );
    return rows[0];
  }

  async findIdempotencyKey(
    organisationId: string,
    key: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ offerId: string; requestHash: string } | undefined> {
    const rows: Array<{ offerId: string; requestHash: string }> = await manager.query(
      `SELECT offer_id AS "offerId", request_hash AS "requestHash" FROM offers.idempotency_key WHERE organisation_id = $1 AND key = $2`,
      [organisationId, key],
    );
    return rows[0];
  }

  /**
   * Claims an Idempotency-Key for a new offer inside the caller's transaction. If the key was used
   * before (or is being used by a concurrent request, which we wait for), returns that earlier claim.
   */
  async claimIdempotencyKey(
    manager: EntityManager,
    organisationId: string,
    key: string,
    requestHash: string,
    offerId: string,
  ): Promise<{ offerId: string; requestHash: string } | undefined> {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO offers.idempotency_key (organisation_id, key, request_hash, offer_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [organisationId, key, requestHash, offerId],
    );
    if (inserted.length > 0) return undefined;
    return this.findIdempotencyKey(organisationId, key, manager);
  }
}

