import { randomUUID } from 'node:crypto';
import { type EventEnvelope, eventProblem } from '@availability/contracts';
import { currentTraceId } from '@availability/service-core';
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
 * The migration that adds the trace id column, for every service with an outbox (after its first
 * migration): the relay sends it as the message's `x-request-id` header, so the request that caused
 * an event can be followed into the services that handle it.
 */
export function outboxTraceIdMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = outboxTable(schema);
  return sqlMigration('OutboxTraceId', timestamp, [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS trace_id text`], [`ALTER TABLE ${table} DROP COLUMN trace_id`]);
}

/**
 * Payloads kept as the JSON text they were written as (`json`, not `jsonb`) and stored without
 * compression. The outbox is a buffer: nothing queries inside a payload, and a row lives until it is
 * published and a day after. For a large event (an offer to 10,000 workers is 400 KB of JSON) jsonb's
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
  /** The trace id of the request that caused the event, if any. */
  traceId?: string;
}

export function outboxMessage(subject: string, event: EventEnvelope): OutboxMessage {
  // Refused at the producer: an event that breaks its schema never reaches the outbox, and the state change it announces fails with it.
  const problem = eventProblem(subject, event);
  if (problem) throw new InvalidEventError(`${subject} event does not match its schema: ${problem}`);
  return { eventId: event.eventId, subject, payload: JSON.stringify(event), traceId: currentTraceId() };
}

export function outboxTable(schema: string): string {
  return `"${schema}".outbox`;
}
