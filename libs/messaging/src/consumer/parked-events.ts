import { counter, DAY_MS, type RetentionClass } from '@availability/service-core';
import type { DataSource, MigrationInterface } from 'typeorm';
import { sqlMigration } from '../sql-migration.js';

/** An event a consumer can never handle, kept with the reason instead of being retried or dropped. */
export interface ParkedEvent {
  /** As it arrived, prefix included. */
  subject: string;
  /** Its sequence in the stream, which names it there. */
  streamSequence: number;
  /** Its bytes exactly as received (they need not be text). */
  payload: Uint8Array;
  reason: string;
}

function parkedTable(schema: string): string {
  return `"${schema}".parked_event`;
}

/** The table each consuming service keeps its parked events in (after its own first migration). */
export function parkedEventsMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = parkedTable(schema);
  return sqlMigration(
    'ParkedEvents',
    timestamp,
    [
      `CREATE TABLE ${table} (
        id bigserial PRIMARY KEY,
        subject text NOT NULL,
        stream_sequence bigint NOT NULL,
        payload bytea NOT NULL,
        reason text NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (subject, stream_sequence)
      )`,
    ],
    [`DROP TABLE ${table}`],
  );
}

/**
 * When an operator dealt with a parked event (published it again, or judged it lost): set by hand
 * (`UPDATE <schema>.parked_event SET handled_at = now() WHERE id = …`). A handled event is kept a
 * while and then pruned (parkedEventsRetention); one not handled is kept until it is.
 */
export function parkedEventsHandledMigration(schema: string, timestamp: number): new () => MigrationInterface {
  const table = parkedTable(schema);
  return sqlMigration(
    'ParkedEventsHandled',
    timestamp,
    // The table holds only what could never be handled: a plain index is built in a moment.
    [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS handled_at timestamptz`, `CREATE INDEX IF NOT EXISTS parked_event_handled ON ${table} (handled_at) WHERE handled_at IS NOT NULL`],
    [`DROP INDEX IF EXISTS "${schema}".parked_event_handled`, `ALTER TABLE ${table} DROP COLUMN handled_at`],
  );
}

/** Handled parked events are kept `days` after they were handled; unhandled ones until they are. */
export function parkedEventsRetention(schema: string, days: number): RetentionClass {
  return { name: 'parked-events', table: parkedTable(schema), time: 'handled_at', where: 'handled_at IS NOT NULL', keepMs: days * DAY_MS };
}

/**
 * Keeps what a consumer set aside: an operator reads it (`SELECT … FROM <schema>.parked_event`), fixes
 * the producer or the consumer, and publishes the event again. A redelivered event is parked once.
 */
export class ParkedEventStore {
  private readonly parked = counter('events_parked_total', 'Events a consumer could never handle, kept with the reason (<schema>.parked_event).');

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
  ) {}

  async park(event: ParkedEvent): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${parkedTable(this.schema)} (subject, stream_sequence, payload, reason) VALUES ($1, $2, $3, $4)
       ON CONFLICT (subject, stream_sequence) DO NOTHING`,
      [event.subject, event.streamSequence, Buffer.from(event.payload), event.reason.replaceAll('\u0000', '\\u0000')],
    );
    this.parked.inc();
  }
}
