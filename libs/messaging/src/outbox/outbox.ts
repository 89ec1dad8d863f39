import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@availability/contracts';

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

/** Builds an event with its envelope (DESIGN 2): a fresh eventId, the time, the owning organisation. */
export function newEvent<T extends object>(organisationId: string, body: T, now = new Date()): EventEnvelope & T {
  return { eventId: randomUUID(), occurredAt: now.toISOString(), organisationId, ...body };
}

/** A row for the outbox: written in the same transaction as the state change it announces. */
export interface OutboxMessage {
  eventId: string;
  subject: string;
  /** The event, serialised once. */
  payload: string;
}

export function outboxMessage(subject: string, event: EventEnvelope): OutboxMessage {
  return { eventId: event.eventId, subject, payload: JSON.stringify(event) };
}

export function outboxTable(schema: string): string {
  return `"${schema}".outbox`;
}
