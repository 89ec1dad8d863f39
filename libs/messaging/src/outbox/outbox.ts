import { randomUUID } from 'node:crypto';
import { type EventEnvelope, eventProblem } from '@availability/contracts';
import { concurrentIndexMigration, currentTrace, HOUR_MS, type RetentionClass } from '@availability/service-core';
import type { MigrationInterface } from 'typeorm';
import { sqlMigration } from '../sql-migration.js';

/** SQL that creates a service's outbox table; a service's first migration runs it for its own schema. */
export function createOutboxTableSql(schema: string): string[] {
  return [
    `CREATE TABLE "${schema}".outbox (
      id bigserial PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      subject text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz
    )`,
    `CREATE INDEX outbox_unpublished ON "${schema}".outbox (id) WHERE published_at IS NULL`,
  ];
}

/**
 * The migration that adds the request id column (`trace_id`, named when the request id was the trace
 * id), for every service with an outbox (after its first migration): the relay sends it as the
 * message's `x-request-id` header, so a caller's own request id finds the work its request caused.
 */
export function outboxTraceIdMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = outboxTable(schema);
  return sqlMigration('OutboxTraceId', timestamp, [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS trace_id text`], [`ALTER TABLE ${table} DROP COLUMN trace_id`]);
}

/**
 * The migration that adds the W3C `traceparent` of the work that wrote a row (its span, or the span
 * it continued), for every service with an outbox: the relay's publish continues that trace, so the
 * event's handlers join the trace of the request that caused it.
 */
export function outboxTraceparentMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = outboxTable(schema);
  return sqlMigration('OutboxTraceparent', timestamp, [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS traceparent text`], [`ALTER TABLE ${table} DROP COLUMN traceparent`]);
}

/**
 * Payloads kept as the JSON text they were written as (`json`, not `jsonb`) and stored without
 * compression. The outbox is a buffer: nothing queries inside a payload, and a row lives until it is
 * published and a day after (OUTBOX_RETENTION_HOURS). For a large event (an offer to 10,000 workers is 400 KB of JSON) jsonb's
 * parse on write, its conversion back to text for the relay and the compression cost about 15 ms of
 * PostgreSQL time between them. Small payloads are stored inline as before.
 */
export function outboxPayloadTextMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = outboxTable(schema);
  return sqlMigration(
    'OutboxPayloadText',
    timestamp,
    [`ALTER TABLE ${table} ALTER COLUMN payload TYPE json USING payload::json, ALTER COLUMN payload SET STORAGE EXTERNAL`],
    [`ALTER TABLE ${table} ALTER COLUMN payload TYPE jsonb USING payload::jsonb, ALTER COLUMN payload SET STORAGE EXTENDED`],
  );
}

/**
 * Dead rows the outbox's autovacuum waits for, whatever the table's size. Every published row leaves
 * a dead entry in the unpublished-rows index until a vacuum, and the relay's poll and the backlog
 * gauge walk over them. By default autovacuum waits for a fifth of the table, and a table that keeps
 * a day of events at 100 a second would gather 1.7 million dead entries before one.
 */
export const OUTBOX_VACUUM_THRESHOLD = 10_000;

/** The migration that has autovacuum clean and analyse an outbox after a fixed number of rows (OUTBOX_VACUUM_THRESHOLD). */
export function outboxVacuumMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = outboxTable(schema);
  const settings = {
    autovacuum_vacuum_scale_factor: 0,
    autovacuum_vacuum_threshold: OUTBOX_VACUUM_THRESHOLD,
    autovacuum_analyze_scale_factor: 0,
    autovacuum_analyze_threshold: OUTBOX_VACUUM_THRESHOLD,
  };
  const assignments = Object.entries(settings).map(([name, value]) => `${name} = ${value}`);
  return sqlMigration(
    'OutboxVacuum',
    timestamp,
    [`ALTER TABLE ${table} SET (${assignments.join(', ')})`],
    [`ALTER TABLE ${table} RESET (${Object.keys(settings).join(', ')})`],
  );
}

/**
 * The index the pruner reads published rows by, oldest first (outboxRetention). Partial: a row gets
 * its entry when it is marked published (a mark writes a new row version anyway, as `published_at` is
 * in the unpublished-rows index's predicate), so the relay's insert pays nothing for it; without it
 * each pruning read the whole table.
 */
export function outboxPublishedIndexMigration(schema: string, timestamp: number): new () => MigrationInterface {
  return concurrentIndexMigration('OutboxPublishedIndex', timestamp, [{ schema, name: 'outbox_published', on: `${outboxTable(schema)} (published_at) WHERE published_at IS NOT NULL` }]);
}

/** Published rows are kept `hours` for inspection, then pruned; an unpublished row is never. */
export function outboxRetention(schema: string, hours: number): RetentionClass {
  return { name: 'outbox', table: outboxTable(schema), time: 'published_at', where: 'published_at IS NOT NULL', keepMs: hours * HOUR_MS };
}

/** Builds an event with its envelope (DESIGN 2): a fresh eventId, the time, the owning organisation. */
export function newEvent<T extends object>(organisationId: string, body: T, now = new Date()): EventEnvelope & T {
  return { eventId: randomUUID(), occurredAt: now.toISOString(), organisationId, ...body };
}

/** A producer tried to write an event that does not match its definition (a defect, never a client's doing). */
export class InvalidEventError extends Error {}

/** A row for the outbox: written in the same transaction as the state change it announces. */
export interface OutboxMessage {
  eventId: string;
  subject: string;
  /** The event, serialised once. */
  payload: string;
  /** The W3C traceparent of the work that caused the event, if any. */
  traceparent?: string;
  /** The request id of the request that caused it, if any (see REQUEST_ID_HEADER). */
  requestId?: string;
}

/** `event` as its subject's schema defines it; only its id is read here (a sign-in request has no organisation). */
export function outboxMessage(subject: string, event: Pick<EventEnvelope, 'eventId'>): OutboxMessage {
  // Refused at the producer: an event that breaks its schema never reaches the outbox, and the state change it announces fails with it.
  const problem = eventProblem(subject, event);
  if (problem) throw new InvalidEventError(`${subject} event does not match its schema: ${problem}`);
  const { traceparent, requestId } = currentTrace();
  return { eventId: event.eventId, subject, payload: JSON.stringify(event), traceparent, requestId };
}

export function outboxTable(schema: string): string {
  return `"${schema}".outbox`;
}
