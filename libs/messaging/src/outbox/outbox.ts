import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@availability/contracts';
import { currentTraceId } from '@availability/service-core';
import type { MigrationInterface, QueryRunner } from 'typeorm';

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
 * an event can be followed into the services that handle it. `timestamp` orders it among the
 * service's own migrations.
 */
export function outboxTraceIdMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const name = `OutboxTraceId${timestamp}`;
  const migration = class implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${outboxTable(schema)} ADD COLUMN IF NOT EXISTS trace_id text`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${outboxTable(schema)} DROP COLUMN trace_id`);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
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
  /** The trace id of the request that caused the event, if any. */
  traceId?: string;
}

export function outboxMessage(subject: string, event: EventEnvelope): OutboxMessage {
  return { eventId: event.eventId, subject, payload: JSON.stringify(event), traceId: currentTraceId() };
}

export function outboxTable(schema: string): string {
  return `"${schema}".outbox`;
}
