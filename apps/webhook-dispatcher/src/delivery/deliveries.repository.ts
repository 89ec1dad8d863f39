import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { appendToOutbox, type OutboxMessage } from '@availability/messaging';
import { type PreparedStatement, runPrepared } from '@availability/service-core';
import { type RequestAsSent, requestAsSent, type WebhookType, webhookTypeOf } from '../domain/webhook-call.js';

export const DISPATCHER_SCHEMA = 'dispatcher';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead' | 'skipped' | 'superseded';
export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'dead', 'skipped', 'superseded'];

export interface NewDelivery {
  eventId: string;
  organisationId: string;
  eventSubject: string;
  webhookId: string;
  method: string;
  path: string;
  body: string;
  url: string | null;
  status: 'pending' | 'skipped' | 'superseded';
}

/** A test event's delivery: always new (its event id is made for it), always to be sent. */
export type NewTestDelivery = Omit<NewDelivery, 'status' | 'url'> & { url: string };

/** The delivery row behind a new or repeated event: what the intake needs to decide whether to queue a job. */
export interface IntakeResult {
  id: number | null;
  status: DeliveryStatus;
  series: number;
  inserted: boolean;
  /** Held back while its endpoint's circuit is open: it has no job. */
  held: boolean;
  /** Attempts its current series has made (0 for a new row). */
  attemptsInSeries: number;
  /** When its next attempt is due (a `failed` delivery waiting for its retry); null for a new row. */
  nextAttemptAt: Date | null;
}

/** One finished attempt (or a decision taken without calling: `statusCode` and `durationMs` then null/0). */
export interface AttemptRecord {
  deliveryId: number;
  series: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  errorKind: string | null;
  errorMessage: string | null;
  responseExcerpt: string | null;
  /** Status of the delivery after this attempt. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  url: string | null;
}

/**
 * The first attempt of a delivery nothing was written for before it (an event's first sight): the
 * delivery and its attempt are written together, the delivery already in the state the attempt left it.
 */
export interface FirstAttemptRecord extends Omit<AttemptRecord, 'deliveryId' | 'series'> {
  delivery: NewDelivery;
}

/** A delivery as the operator and portal APIs show it. */
export interface DeliveryView {
  id: number;
  eventId: string;
  organisationId: string;
  eventSubject: string;
  /** The webhook type the subject makes; null for none (no such delivery is written today). */
  eventType: WebhookType | null;
  /** A test event the organisation sent itself. */
  test: boolean;
  webhookId: string;
  method: string;
  path: string;
  url: string | null;
  /** The offer an offer response answers; null for other deliveries. */
  offerId: string | null;
  /** The worker who answered, or who added the organisation as a contact. */
  workerId: string | null;
  status: DeliveryStatus;
  attempts: number;
  series: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  /** Since when the delivery is held back because its endpoint's circuit is open; null when it is not. */
  heldSince: string | null;
  attemptLog?: AttemptView[];
  /** One delivery's request as every attempt sends it (not in lists). */
  request?: RequestAsSent;
}

export interface AttemptView {
  attemptNo: number;
  series: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  errorKind: string | null;
  errorMessage: string | null;
  responseExcerpt: string | null;
}

/** What a redelivery needs to queue a fresh attempt series. */
export interface RedeliveryRow {
  id: number;
  eventId: string;
  organisationId: string;
  eventSubject: string;
  webhookId: string;
  method: string;
  path: string;
  body: string;
  series: number;
  test: boolean;
}

/** A held delivery as it goes back to the queue: how many attempts its series has used so far. */
export interface HeldRow extends RedeliveryRow {
  attemptsInSeries: number;
}

export interface EndpointRow {
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

/**
 * What the log knows about an organisation's endpoint: its shared health (all null when it never
 * failed), how many deliveries are held back for it, and its latest successful and failed calls among
 * its newest deliveries (ENDPOINT_ACTIVITY_WINDOW).
 */
export interface EndpointActivityRow {
  baseUrl: string | null;
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  heldCount: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastFailureError: string | null;
}

/**
 * How many of an organisation's newest deliveries the endpoint's last success and failure are looked
 * for in: reading them costs no write on the delivery path, and stays cheap however long the log.
 */
export const ENDPOINT_ACTIVITY_WINDOW = 1_000;

export interface DeliveryFilter {
  organisationId?: string;
  eventId?: string;
  /** The webhook-id header (its event is given as eventId too, which bounds the search). */
  webhookId?: string;
  offerId?: string;
  workerId?: string;
  status?: DeliveryStatus;
  /** The event subject (a webhook type's event). */
  eventSubject?: string;
  /** Deliveries of events recorded at or after `from` and before `to`. */
  from?: Date;
  to?: Date;
  before?: number;
  limit: number;
}

/** Deliveries started again per statement by a redelivery by time. */
export const REDELIVERY_BATCH = 500;

const ts = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The offer and the worker a delivery is about, read from the exact bytes it sends (the body's fixed
 * key order, DESIGN 4; a contact's worker is in its path). The same expressions are indexed
 * (migration DeliverySubjects), so searching by either reads only the page's rows.
 */
const OFFER_OF = `substring(d.body from '"offerId":"([0-9a-f-]{36})"')`;
const WORKER_OF = `COALESCE(substring(d.body from '"workerId":"([0-9a-f-]{36})"'), substring(d.path from '^/contact/new/([0-9a-f-]{36})$'))`;

/**
 * An offer response's sequence, read from the bytes it sends (null for any other delivery, and for an
 * answer whose producer gave none): written to the delivery's `sequence` column as it is inserted.
 */
const SEQUENCE_OF = (body: string) => `substring(${body} from '"sequence":([0-9]+)[,}]')::int`;

/**
 * The log holds a newer answer than delivery `d`'s, from the same worker about the same offer, to the
 * same organisation (any status: the newer is the one to deliver). One probe of delivery_answer_order
 * (migration AnswerOrder), whose expressions these are. An answer without sequence is never superseded.
 */
export const ANSWER_SUPERSEDED = `(d.sequence IS NOT NULL AND EXISTS (
    SELECT 1 FROM dispatcher.delivery n
    WHERE n.organisation_id = d.organisation_id
      AND substring(n.body from '"offerId":"([0-9a-f-]{36})"') = substring(d.body from '"offerId":"([0-9a-f-]{36})"')
      AND substring(n.body from '"workerId":"([0-9a-f-]{36})"') = substring(d.body from '"workerId":"([0-9a-f-]{36})"')
      AND n.sequence IS NOT NULL AND n.sequence > d.sequence))`;

/** Why a superseded delivery was not sent, as its log shows it. */
export const SUPERSEDED_REASON = 'a newer answer from this worker about this offer replaced it';

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", d.organisation_id AS "organisationId", d.event_subject AS "eventSubject",
  d.webhook_id AS "webhookId", d.method, d.path, d.url, ${OFFER_OF} AS "offerId", ${WORKER_OF} AS "workerId", d.status, d.attempts, d.series,
  ${ts('d.next_attempt_at')} AS "nextAttemptAt", d.last_status_code AS "lastStatusCode", d.last_error AS "lastError",
  ${ts('d.created_at')} AS "createdAt", ${ts('d.updated_at')} AS "updatedAt", ${ts('d.held_at')} AS "heldSince", d.test`;

const REDELIVERY_COLUMNS = `id, event_id AS "eventId", organisation_id AS "organisationId", event_subject AS "eventSubject",
  webhook_id AS "webhookId", method, path, body, series, test`;

/**
 * A delivery's id is drawn within this long of its `created_at` (the start of the one statement that
 * inserts it, which DATABASE_QUERY_TIMEOUT_MS cuts off well before): so the highest id recorded
 * before a time is among the deliveries recorded in this long before the last of them.
 */
const ID_DRAWN_WITHIN = `interval '5 minutes'`;

/**
 * A page of the delivery log, newest first. Unnamed, so each is planned for its values: a filter not
 * given drops out, and the organisation's index for the filters given (delivery_organisation_…) reads
 * only the page's rows however long the log. Before a time (`$8`), the page starts at the highest id
 * recorded before it, found among the last minutes before it (delivery_organisation_created), rather
 * than walking back from the newest delivery; the time itself is still checked row by row.
 */
export const LIST_DELIVERIES = `SELECT ${DELIVERY_COLUMNS} FROM dispatcher.delivery d
  WHERE ($1::text IS NULL OR d.organisation_id = $1)
    AND ($2::uuid IS NULL OR d.event_id = $2)
    AND ($3::text IS NULL OR d.status = $3)
    AND ($4::bigint IS NULL OR d.id < $4)
    AND ($6::text IS NULL OR d.event_subject = $6)
    AND ($7::timestamptz IS NULL OR d.created_at >= $7)
    AND ($8::timestamptz IS NULL OR d.created_at < $8)
    AND ($8::timestamptz IS NULL OR $1::text IS NULL OR d.id <= (
      SELECT max(w.id) FROM dispatcher.delivery w
      WHERE w.organisation_id = $1 AND w.created_at < $8
        AND w.created_at >= (SELECT max(l.created_at) FROM dispatcher.delivery l WHERE l.organisation_id = $1 AND l.created_at < $8) - ${ID_DRAWN_WITHIN}))
    AND ($9::text IS NULL OR d.webhook_id = $9)
    AND ($10::text IS NULL OR ${OFFER_OF} = $10)
    AND ($11::text IS NULL OR ${WORKER_OF} = $11)
  ORDER BY d.id DESC LIMIT $5`;

export function listDeliveriesParams(filter: DeliveryFilter): unknown[] {
  return [
    filter.organisationId ?? null,
    filter.eventId ?? null,
    filter.status ?? null,
    filter.before ?? null,
    filter.limit,
    filter.eventSubject ?? null,
    filter.from ?? null,
    filter.to ?? null,
    filter.webhookId ?? null,
    filter.offerId ?? null,
    filter.workerId ?? null,
  ];
}

/** The attempts a delivery (`d`) has made in its current series. */
const ATTEMPTS_IN_SERIES = `(SELECT count(*) FROM dispatcher.attempt a WHERE a.delivery_id = d.id AND a.series = d.series)`;

/**
 * When a delivery's hold began, in microseconds since 1970 as text (exact, where a Date keeps
 * milliseconds): it names the hold, in the released job's id and in the end of the hold.
 */
const HELD_SINCE = `(extract(epoch FROM d.held_at) * 1000000)::bigint::text`;

export interface HeldSince {
  heldSince: string;
}

const HELD_COLUMNS = `${REDELIVERY_COLUMNS},
  ${ATTEMPTS_IN_SERIES}::int AS "attemptsInSeries"`;

/*
 * The statements that write a batch gathered from events (the intake's, first attempts', attempts')
 * take their locks in one order: new deliveries in the order of their key (event, organisation),
 * existing ones in the order of their id. Two instances can hold the same events in a batch each (a
 * redelivery, a second publication), in any order; locking in the batch's order, they deadlocked, and
 * every event of the losing batch was attempted again.
 */

/**
 * The intake's statement: prepared, as its planning would cost as much as running it. It only inserts:
 * a prepared statement keeps one plan for its connection's life, made when the log may still have
 * been empty, and a plan joining the log that was made then reads the whole log ever after.
 */
const INSERT_DELIVERIES: PreparedStatement = {
  name: 'dispatcher.insert-deliveries',
  text: `INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, held_at, sequence)
         SELECT event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, CASE WHEN $10::boolean THEN now() END, ${SEQUENCE_OF('body')}
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
           AS i(event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status)
         ORDER BY event_id, organisation_id
         ON CONFLICT (event_id, organisation_id) DO NOTHING
         RETURNING id, event_id AS "eventId", organisation_id AS "organisationId", status, series, held_at IS NOT NULL AS held`,
};

/**
 * The deliveries events had already (published again, or redelivered): planned at each run, not
 * prepared, as it joins the log; run only when the intake's insert left some out.
 */
const EXISTING_DELIVERIES = `SELECT d.id, d.event_id AS "eventId", d.organisation_id AS "organisationId", d.status, d.series, d.held_at IS NOT NULL AS held,
         d.next_attempt_at AS "nextAttemptAt",
         ${ATTEMPTS_IN_SERIES}::int AS "attemptsInSeries"
       FROM unnest($1::uuid[], $2::text[]) AS k(event_id, organisation_id)
       JOIN dispatcher.delivery d ON d.event_id = k.event_id AND d.organisation_id = k.organisation_id`;

/**
 * The statement of every attempt but a first (retries, trials): planned at each run, not prepared, as it
 * joins the log (see INSERT_DELIVERIES). `locked` takes the deliveries' locks in id order before any is
 * updated (the update's own order is the plan's).
 */
const RECORD_ATTEMPTS = `WITH input AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::timestamptz[], $11::text[])
           AS i(delivery_id, series, started_at, duration_ms, status_code, error_kind, error_message, excerpt, status, next_attempt_at, url)
       ), locked AS (
         SELECT id FROM dispatcher.delivery WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE
       ), updated AS (
         UPDATE dispatcher.delivery d SET
           attempts = d.attempts + 1,
           status = CASE WHEN d.series = i.series THEN i.status ELSE d.status END,
           next_attempt_at = CASE WHEN d.series = i.series THEN i.next_attempt_at ELSE d.next_attempt_at END,
           -- a failed attempt of a held delivery (its trial call, or a released attempt that ran before
           -- its release ended the hold) starts a new hold, which that release does not end; any other
           -- outcome ends the hold
           held_at = CASE WHEN d.series = i.series AND i.status = 'failed' AND d.held_at IS NOT NULL THEN now() ELSE NULL END,
           claimed_by = NULL,
           last_status_code = i.status_code,
           last_error = i.error_message,
           url = COALESCE(i.url, d.url),
           updated_at = now()
         FROM input i WHERE d.id = i.delivery_id AND d.id IN (SELECT id FROM locked)
         RETURNING d.id, d.attempts
       )
       INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code, error_kind, error_message, response_excerpt)
       SELECT u.id, u.attempts, i.series, i.started_at, i.duration_ms, i.status_code, i.error_kind, i.error_message, i.excerpt
       FROM updated u JOIN input i ON i.delivery_id = u.id`;

/**
 * The statement of a first attempt (every event seen for the first time): the delivery with its
 * outcome, and its attempt. An event that has a delivery already (a copy of it was published again)
 * keeps it: its id comes back null, and the attempt is appended to it (appendRepeatAttempt).
 */
const RECORD_FIRST_ATTEMPTS: PreparedStatement = {
  name: 'dispatcher.record-first-attempts',
  text: `WITH input AS (
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                                $9::timestamptz[], $10::int[], $11::int[], $12::text[], $13::text[], $14::text[], $15::text[], $16::timestamptz[])
             WITH ORDINALITY AS i(event_id, organisation_id, event_subject, webhook_id, method, path, body, url,
                                  started_at, duration_ms, status_code, error_kind, error_message, excerpt, status, next_attempt_at, n)
         ), inserted AS (
           INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status,
                                            attempts, next_attempt_at, last_status_code, last_error, sequence)
           SELECT event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, 1, next_attempt_at, status_code, error_message,
                  ${SEQUENCE_OF('body')}
           FROM input ORDER BY event_id, organisation_id
           ON CONFLICT (event_id, organisation_id) DO NOTHING
           RETURNING id, event_id, organisation_id
         ), attempts AS (
           INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code, error_kind, error_message, response_excerpt)
           SELECT ins.id, 1, 0, i.started_at, i.duration_ms, i.status_code, i.error_kind, i.error_message, i.excerpt
           FROM inserted ins JOIN input i ON i.event_id = ins.event_id AND i.organisation_id = ins.organisation_id
         )
         SELECT ins.id FROM input i
         LEFT JOIN inserted ins ON ins.event_id = i.event_id AND ins.organisation_id = i.organisation_id
         ORDER BY i.n`,
};

/** The statements every connection prepares: their plans are made once, on tables that may still be empty (test/prepared-plans). */
export const DELIVERY_STATEMENTS = [INSERT_DELIVERIES, RECORD_FIRST_ATTEMPTS];

/** A delivery's identity in the log (its unique key): one event for one organisation. */
function deliveryKey(delivery: { eventId: string; organisationId: string }): string {
  return `${delivery.eventId} ${delivery.organisationId}`;
}

/** `items` in order, split into rounds in which no key appears twice (most batches: one round). */
function roundsOfDistinct<T>(items: T[], key: (item: T) => unknown): T[][] {
  const rounds: Array<{ keys: Set<unknown>; items: T[] }> = [];
  for (const item of items) {
    const k = key(item);
    let round = rounds.find((r) => !r.keys.has(k));
    if (!round) rounds.push((round = { keys: new Set(), items: [] }));
    round.keys.add(k);
    round.items.push(item);
  }
  return rounds.map((round) => round.items);
}

/** A new delivery's event and call as the statements that write one take them: one array per column, in this order. */
function newDeliveryColumns(rows: NewDelivery[]): unknown[][] {
  return [
    rows.map((r) => r.eventId),
    rows.map((r) => r.organisationId),
    rows.map((r) => r.eventSubject),
    rows.map((r) => r.webhookId),
    rows.map((r) => r.method),
    rows.map((r) => r.path),
    rows.map((r) => r.body),
  ];
}

/** An attempt's outcome as the attempt statements take it: one array per column, in this order. */
function outcomeColumns(records: Array<Omit<AttemptRecord, 'deliveryId' | 'series'>>): unknown[][] {
  return [
    records.map((r) => r.startedAt),
    records.map((r) => Math.round(r.durationMs)),
    records.map((r) => r.statusCode),
    records.map((r) => r.errorKind),
    records.map((r) => r.errorMessage),
    records.map((r) => r.responseExcerpt),
    records.map((r) => r.status),
    records.map((r) => r.nextAttemptAt),
  ];
}

/**
 * The endpoints with deliveries held back (the recovery sweep makes sure each has a trial job). A
 * DISTINCT would read every held delivery, every sweep, so its cost would grow with an outage; this
 * steps through the held-deliveries index from one endpoint to the next instead, one probe each.
 */
export const HELD_ORGANISATIONS = `WITH RECURSIVE held AS (
    (SELECT organisation_id FROM dispatcher.delivery WHERE held_at IS NOT NULL ORDER BY organisation_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.organisation_id FROM dispatcher.delivery d
            WHERE d.held_at IS NOT NULL AND d.organisation_id > held.organisation_id ORDER BY d.organisation_id LIMIT 1)
    FROM held WHERE held.organisation_id IS NOT NULL
  )
  SELECT organisation_id AS "organisationId" FROM held WHERE organisation_id IS NOT NULL`;

/** Every SQL statement webhook-dispatcher runs lives here. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records deliveries for new events, idempotently: a repeated (event, organisation) keeps its first
   * row. Returns, in input order, the row each input maps to and whether it was new. `held`: the new
   * rows start held (their endpoint's circuit is open).
   */
  async insertDeliveries(rows: NewDelivery[], held = false): Promise<IntakeResult[]> {
    type Row = { id: number; eventId: string; organisationId: string; status: DeliveryStatus; series: number; held: boolean };
    const inserted = await runPrepared<Row>(this.dataSource, INSERT_DELIVERIES, [...newDeliveryColumns(rows), rows.map((r) => r.url), rows.map((r) => r.status), held]);
    const found = new Map<string, IntakeResult>(
      inserted.map((r) => [deliveryKey(r), { id: r.id, status: r.status, series: r.series, inserted: true, held: r.held, attemptsInSeries: 0, nextAttemptAt: null }]),
    );
    const others = rows.filter((row) => !found.has(deliveryKey(row)));
    if (others.length > 0) {
      const existing: Array<Row & { attemptsInSeries: number; nextAttemptAt: Date | null }> = await this.dataSource.query(EXISTING_DELIVERIES, [others.map((r) => r.eventId), others.map((r) => r.organisationId)]);
      for (const r of existing) found.set(deliveryKey(r), { id: r.id, status: r.status, series: r.series, inserted: false, held: r.held, attemptsInSeries: r.attemptsInSeries, nextAttemptAt: r.nextAttemptAt });
    }
    // A row whose inserting transaction had not committed when it was looked for: treat it as pending.
    return rows.map((row) => found.get(deliveryKey(row)) ?? { id: null, status: 'pending', series: 0, inserted: false, held: false, attemptsInSeries: 0, nextAttemptAt: null });
  }

  /**
   * Records finished attempts and moves their deliveries on, in one statement for the whole batch; a
   * delivery attempted twice in one batch (two copies of its event at once) gets a statement per
   * attempt, in order, as the statement numbers each delivery's attempt once.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<void> {
    for (const round of roundsOfDistinct(records, (r) => r.deliveryId)) {
      await this.dataSource.query(RECORD_ATTEMPTS, [
        round.map((r) => r.deliveryId),
        round.map((r) => r.series),
        ...outcomeColumns(round),
        round.map((r) => r.url),
      ]);
    }
  }

  /**
   * Records first attempts with their deliveries, in one statement for the whole batch. Returns, in
   * input order, each new delivery's id, or null where the event had a delivery already.
   */
  async recordFirstAttempts(records: FirstAttemptRecord[]): Promise<Array<number | null>> {
    // Two copies of one event in one batch (each came as its first publication) would collide in one
    // statement: the second goes in the next, where it finds the first's delivery (null), as any copy
    // that comes after its delivery does, and is logged as one more attempt of it.
    const ids: Array<number | null> = records.map(() => null);
    const indexes = records.map((_, index) => index);
    for (const round of roundsOfDistinct(indexes, (index) => deliveryKey(records[index].delivery))) {
      const batch = round.map((index) => records[index]);
      const rows = await runPrepared<{ id: number | null }>(this.dataSource, RECORD_FIRST_ATTEMPTS, [
        ...newDeliveryColumns(batch.map((r) => r.delivery)),
        batch.map((r) => r.url ?? r.delivery.url),
        ...outcomeColumns(batch),
      ]);
      round.forEach((index, row) => (ids[index] = rows[row].id));
    }
    return ids;
  }

  /**
   * An attempt made for an event that had a delivery already (a copy of it published again): logged
   * as one more attempt of that delivery, whose status and schedule stay as they were. Returns the
   * delivery's id.
   */
  async appendRepeatAttempt(record: FirstAttemptRecord): Promise<number | undefined> {
    const rows: Array<{ id: number }> = await this.dataSource.query(
      `WITH updated AS (
         UPDATE dispatcher.delivery SET attempts = attempts + 1, updated_at = now()
         WHERE event_id = $1 AND organisation_id = $2 RETURNING id, attempts, series
       )
       INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code, error_kind, error_message, response_excerpt)
       SELECT id, attempts, series, $3, $4, $5, $6, $7, $8 FROM updated
       RETURNING delivery_id AS id`,
      [
        record.delivery.eventId,
        record.delivery.organisationId,
        record.startedAt,
        Math.round(record.durationMs),
        record.statusCode,
        record.errorKind,
        record.errorMessage,
        record.responseExcerpt,
      ],
    );
    return rows[0]?.id;
  }

  /**
   * A queued attempt (a retry, a released or recovered attempt, a trial call) claims its delivery just
   * before it calls: `claimed` when the delivery is unfinished, attempt `attemptNo` of its series not
   * made yet, and no other claimant holds it (or its claim is older than `staleMs`: that claimant died
   * mid-call); `made` when that attempt was made or the delivery finished (nothing to do); `taken`
   * when another claimant is making it now. So two jobs for one attempt (a release's and a trial's, a
   * sweep's and a release's) never both call. A claim ends when the attempt is recorded.
   * `superseded` when the delivery is an answer the log holds a newer one of (ANSWER_SUPERSEDED): it is
   * finished so, in the same statement, and not sent; an explicit redelivery (series > 0) was asked
   * for and is sent all the same.
   */
  async claimAttempt(deliveryId: number, series: number, attemptNo: number, claimant: string, staleMs: number): Promise<'claimed' | 'made' | 'taken' | 'superseded'> {
    const rows: Array<{ open: boolean; claimed: boolean; superseded: boolean }> = await this.dataSource.query(
      `WITH target AS (
         SELECT d.id, d.attempts, (d.status IN ('pending', 'failed') AND d.series = $2
                       AND ${ATTEMPTS_IN_SERIES} = $3 - 1) AS open,
                (d.series = 0 AND ${ANSWER_SUPERSEDED}) AS superseded
         FROM dispatcher.delivery d WHERE d.id = $1
       ), superseding AS (
         UPDATE dispatcher.delivery d SET status = 'superseded', last_error = $6, next_attempt_at = NULL, held_at = NULL, claimed_by = NULL, updated_at = now()
         FROM target t
         WHERE d.id = t.id AND t.open AND t.superseded AND d.attempts = t.attempts AND d.series = $2 AND d.status IN ('pending', 'failed')
         RETURNING d.id
       ), claimed AS (
         -- d.attempts is checked again on the row as it is when the update takes it: an attempt recorded
         -- since this statement's snapshot (a claimant that just finished) makes the claim fail.
         UPDATE dispatcher.delivery d SET claimed_by = $4, claimed_at = now()
         FROM target t
         WHERE d.id = t.id AND t.open AND NOT t.superseded AND d.attempts = t.attempts AND d.series = $2
           AND (d.claimed_by IS NULL OR d.claimed_by = $4 OR d.claimed_at < now() - $5 * interval '1 millisecond')
         RETURNING d.id
       )
       SELECT t.open, EXISTS (SELECT 1 FROM claimed) AS claimed, EXISTS (SELECT 1 FROM superseding) AS superseded FROM target t`,
      [deliveryId, series, attemptNo, claimant, staleMs, SUPERSEDED_REASON],
    );
    const row = rows.at(0);
    if (!row?.open) return 'made';
    if (row.superseded) return 'superseded';
    return row.claimed ? 'claimed' : 'taken';
  }

  /**
   * An answer seen for the first time, numbered `sequence`: the highest sequence the log holds among
   * the answers from its worker about its offer to its organisation (null for none), read in the
   * same statement that supersedes the older ones there that failed or died (no job is making them
   * now, and none was redelivered: those are left to their claim). Probes of delivery_answer_order.
   */
  async answerArrived(row: Pick<NewDelivery, 'organisationId' | 'body'>, sequence: number): Promise<number | null> {
    const rows: Array<{ newest: number | null }> = await this.dataSource.query(
      `WITH same AS (
         SELECT n.id, n.sequence, n.status, n.series, n.claimed_by FROM dispatcher.delivery n
         WHERE n.organisation_id = $1
           AND substring(n.body from '"offerId":"([0-9a-f-]{36})"') = substring($2::text from '"offerId":"([0-9a-f-]{36})"')
           AND substring(n.body from '"workerId":"([0-9a-f-]{36})"') = substring($2::text from '"workerId":"([0-9a-f-]{36})"')
           AND n.sequence IS NOT NULL
       ), superseding AS (
         UPDATE dispatcher.delivery d SET status = 'superseded', last_error = $4, next_attempt_at = NULL, held_at = NULL, updated_at = now()
         FROM same o
         WHERE d.id = o.id AND o.sequence < $3 AND o.status IN ('failed', 'dead') AND o.series = 0 AND o.claimed_by IS NULL
           AND d.status IN ('failed', 'dead') AND d.series = 0 AND d.claimed_by IS NULL
       )
       SELECT max(sequence) AS newest FROM same`,
      [row.organisationId, row.body, sequence, SUPERSEDED_REASON],
    );
    return rows[0]?.newest ?? null;
  }

  /** A decision taken without calling the integrator (endpoint disabled, no base URL any more). */
  async settle(deliveryId: number, series: number, status: DeliveryStatus, reason: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dispatcher.delivery SET status = $3, last_error = $4, next_attempt_at = NULL, held_at = NULL, updated_at = now()
       WHERE id = $1 AND series = $2`,
      [deliveryId, series, status, reason],
    );
  }

  /** Deliveries matching the filter, newest first, with their attempts. */
  async list(filter: DeliveryFilter): Promise<DeliveryView[]> {
    const deliveries: DeliveryView[] = await this.dataSource.query(LIST_DELIVERIES, listDeliveriesParams(filter));
    await this.attachAttempts(deliveries);
    return deliveries;
  }

  /** One delivery with its attempts; with `organisationId`, only if it is that organisation's. */
  async find(id: number, organisationId?: string): Promise<DeliveryView | undefined> {
    const rows: Array<DeliveryView & { body?: string }> = await this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS}, d.body FROM dispatcher.delivery d WHERE d.id = $1 AND ($2::text IS NULL OR d.organisation_id = $2)`,
      [id, organisationId ?? null],
    );
    await this.attachAttempts(rows);
    if (rows[0] === undefined) return undefined;
    const { body = '', ...delivery } = rows[0];
    return { ...delivery, request: requestAsSent({ ...delivery, body }) };
  }

  /** Records a test event's delivery, pending its first attempt. */
  async insertTestDelivery(row: NewTestDelivery): Promise<RedeliveryRow> {
    const rows: RedeliveryRow[] = await this.dataSource.query(
      `WITH inserted AS (
         INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, test)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', true) RETURNING *
       ) SELECT ${REDELIVERY_COLUMNS} FROM inserted`,
      [row.eventId, row.organisationId, row.eventSubject, row.webhookId, row.method, row.path, row.body, row.url],
    );
    return rows[0];
  }

  private async attachAttempts(deliveries: DeliveryView[]): Promise<void> {
    for (const delivery of deliveries) delivery.eventType = webhookTypeOf(delivery.eventSubject);
    if (deliveries.length === 0) return;
    const attempts: Array<AttemptView & { deliveryId: number }> = await this.dataSource.query(
      `SELECT delivery_id AS "deliveryId", attempt_no AS "attemptNo", series, ${ts('started_at')} AS "startedAt",
              duration_ms AS "durationMs", status_code AS "statusCode", error_kind AS "errorKind",
              error_message AS "errorMessage", response_excerpt AS "responseExcerpt"
       FROM dispatcher.attempt WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt_no`,
      [deliveries.map((d) => d.id)],
    );
    const byDelivery = new Map<number, AttemptView[]>(deliveries.map((d) => [d.id, []]));
    for (const { deliveryId, ...attempt } of attempts) byDelivery.get(deliveryId)?.push(attempt);
    for (const delivery of deliveries) delivery.attemptLog = byDelivery.get(delivery.id) ?? [];
  }

  /**
   * Starts a new attempt series for one delivery (any status but skipped); with `organisationId`, only
   * if it is that organisation's.
   */
  async startRedelivery(id: number, organisationId?: string): Promise<RedeliveryRow | undefined> {
    const rows: RedeliveryRow[] = await this.dataSource.query(
      `WITH updated AS (
         UPDATE dispatcher.delivery SET series = series + 1, status = 'pending', next_attempt_at = NULL, held_at = NULL, claimed_by = NULL, updated_at = now()
         WHERE id = $1 AND status <> 'skipped' AND ($2::text IS NULL OR organisation_id = $2) RETURNING *
       ) SELECT ${REDELIVERY_COLUMNS} FROM updated`,
      [id, organisationId ?? null],
    );
    return rows[0];
  }

  /**
   * Starts a new attempt series for up to `limit` deliveries in `statuses` of events recorded since
   * `since`, of one organisation or all, whose ids follow `afterId`: a batch of a redelivery by time,
   * oldest first, so the caller pages on through however many there are.
   */
  /**
   * How many deliveries a redelivery by time would start again, counted up to `cap` (so a preview
   * never reads more than that many rows of the organisation's failed and dead deliveries).
   */
  async countRedeliverable(since: Date, statuses: DeliveryStatus[], organisationId: string, cap: number): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM (
         SELECT 1 FROM dispatcher.delivery
         WHERE organisation_id = $3 AND status = ANY($2::text[]) AND created_at >= $1
         LIMIT $4
       ) capped`,
      [since, statuses, organisationId, cap],
    );
    return count;
  }

  async startRedeliveries(since: Date, statuses: DeliveryStatus[], organisationId: string | undefined, afterId: number, limit: number): Promise<RedeliveryRow[]> {
    return this.dataSource.query(
      `WITH updated AS (
         UPDATE dispatcher.delivery SET series = series + 1, status = 'pending', next_attempt_at = NULL, held_at = NULL, claimed_by = NULL, updated_at = now()
         WHERE id IN (
           SELECT id FROM dispatcher.delivery
           WHERE created_at >= $1 AND status = ANY($2::text[]) AND ($3::text IS NULL OR organisation_id = $3) AND id > $4
           ORDER BY id LIMIT $5
         ) AND status = ANY($2::text[])
         RETURNING *
       ) SELECT ${REDELIVERY_COLUMNS} FROM updated ORDER BY id`,
      [since, statuses, organisationId ?? null, afterId, limit],
    );
  }

  /** Holds deliveries back (their endpoint's circuit is open); their jobs end once this is written. */
  async hold(deliveries: Array<{ deliveryId: number; series: number }>): Promise<void> {
    await this.dataSource.query(
      `UPDATE dispatcher.delivery d SET held_at = now(), updated_at = now()
       FROM unnest($1::bigint[], $2::int[]) AS i(id, series)
       WHERE d.id = i.id AND d.series = i.series AND d.status IN ('pending', 'failed')`,
      [deliveries.map((d) => d.deliveryId), deliveries.map((d) => d.series)],
    );
  }

  /** The held delivery of an endpoint to try next: the one due first (never tried counts as due). */
  async nextHeld(organisationId: string): Promise<(HeldRow & { nextAttemptAt: Date | null }) | undefined> {
    const rows: Array<HeldRow & { nextAttemptAt: Date | null }> = await this.dataSource.query(
      `SELECT ${HELD_COLUMNS}, d.next_attempt_at AS "nextAttemptAt" FROM dispatcher.delivery d
       WHERE d.organisation_id = $1 AND d.held_at IS NOT NULL
       ORDER BY d.next_attempt_at NULLS FIRST, d.id LIMIT 1`,
      [organisationId],
    );
    return rows[0];
  }

  /** Up to `limit` held deliveries of an endpoint, oldest first, each with its hold (HeldSince). */
  async heldBatch(organisationId: string, limit: number): Promise<Array<HeldRow & HeldSince>> {
    return this.dataSource.query(
      `SELECT ${HELD_COLUMNS}, ${HELD_SINCE} AS "heldSince" FROM dispatcher.delivery d
       WHERE d.organisation_id = $1 AND d.held_at IS NOT NULL
       ORDER BY d.id LIMIT $2`,
      [organisationId, limit],
    );
  }

  /**
   * Ends the holds read by `heldBatch`, whose next attempts are now queued. A delivery held again since
   * (its queued job met a circuit still open) keeps that newer hold.
   */
  async endHold(holds: Array<{ id: number } & HeldSince>): Promise<void> {
    await this.dataSource.query(
      `UPDATE dispatcher.delivery d SET held_at = NULL, updated_at = now()
       FROM unnest($1::bigint[], $2::text[]) AS h(id, held_since)
       WHERE d.id = h.id AND ${HELD_SINCE} = h.held_since`,
      [holds.map((hold) => hold.id), holds.map((hold) => hold.heldSince)],
    );
  }

  /**
   * Deliveries that should have been attempted more than `overdueMs` ago and are neither finished nor
   * held: their job was lost (Redis lost its data, or a crash came between the log and the queue).
   */
  async overdue(overdueMs: number, limit: number): Promise<HeldRow[]> {
    return this.dataSource.query(
      `SELECT ${HELD_COLUMNS} FROM dispatcher.delivery d
       WHERE d.status IN ('pending', 'failed') AND d.held_at IS NULL
         AND COALESCE(d.next_attempt_at, d.updated_at) < now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY COALESCE(d.next_attempt_at, d.updated_at) LIMIT $2`,
      [overdueMs, limit],
    );
  }

  /** Endpoints with deliveries held back. */
  async heldOrganisations(): Promise<string[]> {
    const rows: Array<{ organisationId: string }> = await this.dataSource.query(HELD_ORGANISATIONS);
    return rows.map((r) => r.organisationId);
  }

  async endpoint(organisationId: string): Promise<EndpointRow | undefined> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `SELECT failing_since AS "failingSince", disabled_at AS "disabledAt", disabled_reason AS "disabledReason"
       FROM dispatcher.endpoint WHERE organisation_id = $1`,
      [organisationId],
    );
    return rows[0];
  }

  /** An organisation's endpoint as the log sees it (one row, even for an endpoint never seen failing). */
  async endpointActivity(organisationId: string): Promise<EndpointActivityRow> {
    const rows: EndpointActivityRow[] = await this.dataSource.query(
      `WITH recent AS (
         SELECT a.started_at, a.status_code, a.error_message
         FROM (SELECT id FROM dispatcher.delivery WHERE organisation_id = $1 ORDER BY id DESC LIMIT $2) d
         JOIN dispatcher.attempt a ON a.delivery_id = d.id
       ), last_failure AS (
         SELECT started_at, error_message FROM recent WHERE status_code IS NULL OR status_code NOT BETWEEN 200 AND 299
         ORDER BY started_at DESC LIMIT 1
       )
       SELECT e.base_url AS "baseUrl", ${ts('e.failing_since')} AS "failingSince", ${ts('e.disabled_at')} AS "disabledAt",
              e.disabled_reason AS "disabledReason",
              (SELECT count(*) FROM dispatcher.delivery WHERE organisation_id = $1 AND held_at IS NOT NULL)::int AS "heldCount",
              (SELECT ${ts('max(started_at)')} FROM recent WHERE status_code BETWEEN 200 AND 299) AS "lastSuccessAt",
              (SELECT ${ts('started_at')} FROM last_failure) AS "lastFailureAt",
              (SELECT error_message FROM last_failure) AS "lastFailureError"
       FROM (SELECT $1::text AS organisation_id) o LEFT JOIN dispatcher.endpoint e ON e.organisation_id = o.organisation_id`,
      [organisationId, ENDPOINT_ACTIVITY_WINDOW],
    );
    return rows[0];
  }

  /** Notes the start of a failure streak (kept if one is already running); returns when it started. */
  async markFailing(organisationId: string, baseUrl: string): Promise<Date> {
    const rows: Array<{ failingSince: Date }> = await this.dataSource.query(
      `INSERT INTO dispatcher.endpoint (organisation_id, base_url, failing_since) VALUES ($1, $2, now())
       ON CONFLICT (organisation_id) DO UPDATE SET failing_since = COALESCE(dispatcher.endpoint.failing_since, now()),
         base_url = EXCLUDED.base_url, updated_at = now()
       RETURNING failing_since AS "failingSince"`,
      [organisationId, baseUrl],
    );
    return rows[0].failingSince;
  }

  async clearFailing(organisationId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dispatcher.endpoint SET failing_since = NULL, updated_at = now() WHERE organisation_id = $1 AND failing_since IS NOT NULL`,
      [organisationId],
    );
  }

  /**
   * Disables an endpoint and, in the same transaction, writes the event that tells the organisation.
   * Returns false when it already was disabled (no second event).
   */
  async disable(organisationId: string, baseUrl: string, reason: string, event: OutboxMessage): Promise<boolean> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      const rows: unknown[] = await manager.query(
        `INSERT INTO dispatcher.endpoint (organisation_id, base_url, disabled_at, disabled_reason) VALUES ($1, $2, now(), $3)
         ON CONFLICT (organisation_id) DO UPDATE SET disabled_at = now(), disabled_reason = EXCLUDED.disabled_reason,
           base_url = EXCLUDED.base_url, updated_at = now()
         WHERE dispatcher.endpoint.disabled_at IS NULL
         RETURNING 1`,
        [organisationId, baseUrl, reason],
      );
      if (rows.length === 0) return false;
      // Deliveries held back for it have no job that would find it disabled: they are dead-lettered here.
      await manager.query(
        `UPDATE dispatcher.delivery SET status = 'dead', last_error = $2, next_attempt_at = NULL, held_at = NULL, updated_at = now()
         WHERE organisation_id = $1 AND held_at IS NOT NULL`,
        [organisationId, `endpoint disabled: ${reason}`],
      );
      await appendToOutbox(manager, DISPATCHER_SCHEMA, [event]);
      return true;
    });
  }

  /** The integrator re-saved its base URL (which re-ran /test and /test/auth): call it again. */
  async enable(organisationId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dispatcher.endpoint SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, updated_at = now()
       WHERE organisation_id = $1 AND (disabled_at IS NOT NULL OR failing_since IS NOT NULL)`,
      [organisationId],
    );
  }
}
