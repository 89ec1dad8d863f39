import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { SpanKind } from '@opentelemetry/api';
import { isUuid } from '@availability/contracts';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM_NAME,
  connectionPool,
  counter,
  failed,
  observeGauges,
  startSpan,
  traceparentOf,
  tracingOn,
} from '@availability/service-core';
import type pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { JETSTREAM } from '../nats/nats.tokens.js';
import { traceHeaders } from '../nats/trace-headers.js';
import { FIRST_PUBLICATION, FIRST_PUBLICATION_HEADER } from './first-publication.js';
import { type OutboxMessage, outboxTable } from './outbox.js';

export interface OutboxOptions {
  schema: string;
  subjectPrefix: string;
  /** Rows published per transaction. */
  batchSize?: number;
  /** How often the relay looks for rows nobody woke it for (e.g. left by a crashed instance). */
  pollIntervalMs?: number;
  /** False leaves rows for another instance's relay (e.g. a dedicated publisher). Default true. */
  enabled?: boolean;
  /**
   * How old a row must be before the poll takes it. Younger rows belong to the instance that wrote
   * them, which publishes them as it commits (`publishCommitted`). Default 1 s.
   */
  handOverMs?: number;
  /** How long published rows wait for their mark, so that the marks of a trickle share a statement. Default 100 ms. */
  markDelayMs?: number;
}

export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');

interface OutboxRow {
  event_id: string;
  subject: string;
  payload: string;
  /** The request id (see outboxTraceIdMigration). */
  trace_id: string | null;
  traceparent: string | null;
}

/**
 * `Nats-Msg-Id` = eventId (JetStream de-duplicates a row published twice), the trace's headers, and
 * on the commit path `Event-Publication: first` (FIRST_PUBLICATION_HEADER).
 */
function publishOptions(row: OutboxRow, traceparent: string | undefined, first: boolean): Partial<JetStreamPublishOptions> {
  const headers = traceHeaders({ traceparent, requestId: row.trace_id ?? undefined }) ?? (first ? natsHeaders() : undefined);
  if (first) headers?.set(FIRST_PUBLICATION_HEADER, FIRST_PUBLICATION);
  return headers ? { msgID: row.event_id, headers } : { msgID: row.event_id };
}

/** Appends events to the outbox inside the caller's transaction. */
export async function appendToOutbox(manager: EntityManager, schema: string, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await manager.query(
    `INSERT INTO ${outboxTable(schema)} (event_id, subject, payload, trace_id, traceparent)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::json[], $4::text[], $5::text[])`,
    [
      messages.map((m) => m.eventId),
      messages.map((m) => m.subject),
      messages.map((m) => m.payload),
      messages.map((m) => m.requestId ?? null),
      messages.map((m) => m.traceparent ?? null),
    ],
  );
}

/**
 * Publishes committed outbox rows to JetStream with `Nats-Msg-Id = eventId`, so a row published twice
 * (crash after publish, before marking) is stored once. Two ways, one for each case:
 * - the rows a transaction of this process wrote, as soon as it commits (`publishCommitted`), straight
 *   from memory, their marks gathered into one statement a moment later: no claim, no round trip
 *   before the publish;
 * - every other row (its writer died, or JetStream refused it), by a poll that claims rows older than
 *   `handOverMs` in id order with `FOR UPDATE SKIP LOCKED`, so any number of instances poll side by side.
 * Each publish continues the trace of the work that wrote the row (a span when tracing is on).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OutboxRelay');
  private readonly table: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly handOverMs: number;
  private readonly markDelayMs: number;
  private running = false;
  private loop?: Promise<void>;
  /** Resolves the relay's current sleep early; a plain callback, as an AbortController would build an error per wake-up. */
  private wakeUp?: () => void;
  private woken = false;
  /** Publishes that failed in a row; while above 0, committed rows are left to the poll, which backs off. */
  private failures = 0;
  /** Committed rows waiting for this turn's publish, publishes of them in flight, and the event ids published and not yet marked. */
  private committed: OutboxMessage[] = [];
  private readonly sending = new Set<Promise<void>>();
  private toMark: string[] = [];
  private markTimer?: NodeJS.Timeout;
  private readonly marking = new Set<Promise<void>>();
  private readonly published = counter('outbox_published_events_total', 'Events the outbox relay has published to JetStream.');
  private stopObserving?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(JETSTREAM) private readonly js: JetStreamClient,
    @Inject(OUTBOX_OPTIONS) private readonly options: OutboxOptions,
  ) {
    this.table = outboxTable(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.handOverMs = options.handOverMs ?? 1_000;
    this.markDelayMs = options.markDelayMs ?? 100;
  }

  onApplicationBootstrap(): void {
    // Reported by every instance, relay or not: a growing backlog is what an operator must see.
    this.stopObserving = observeGauges(
      [
        { name: 'outbox_pending_events', help: 'Committed events not yet published to JetStream.', labelNames: [] },
        {
          name: 'outbox_oldest_pending_age_seconds',
          help: 'Age of the oldest committed event not yet published (the outbox lag); 0 when none waits.',
          labelNames: [],
        },
      ],
      async (set) => {
        const [row]: Array<{ pending: number; age: number }> = await this.dataSource.query(
          `SELECT count(*)::int AS pending, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
           FROM ${this.table} WHERE published_at IS NULL`,
        );
        set('outbox_pending_events', {}, row.pending);
        set('outbox_oldest_pending_age_seconds', {}, row.age);
      },
    );
    if (this.options.enabled === false) {
      this.logger.warn('outbox relay disabled by configuration: events are stored but not published by this instance');
      return;
    }
    this.running = true;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopObserving?.();
    this.running = false;
    this.wakeUp?.();
    this.publishQueued();
    await Promise.all(this.sending);
    await this.markNow();
    await this.loop;
  }

  /**
   * Called right after a transaction that wrote `messages` to the outbox commits: they are published
   * straight away, in order, and marked a moment later. Rows this does not publish (the relay off or
   * stopping, JetStream refusing) stay for the poll.
   */
  publishCommitted(messages: OutboxMessage[]): void {
    if (!this.running || messages.length === 0) return;
    if (this.failures > 0) {
      // The poll is backing off: it tries again now, so events leave as soon as JetStream answers.
      this.woken = true;
      this.wakeUp?.();
      return;
    }
    // The commits that end in one turn of the event loop are published together, in one write to
    // NATS: under load, one publish per write cost NATS and this process twice the CPU per event.
    if (this.committed.length === 0) setImmediate(() => this.publishQueued());
    this.committed.push(...messages);
  }

  private publishQueued(): void {
    const messages = this.committed;
    this.committed = [];
    for (const message of messages) {
      const row: OutboxRow = { event_id: message.eventId, subject: message.subject, payload: message.payload, trace_id: message.requestId ?? null, traceparent: message.traceparent ?? null };
      const sent: Promise<void> = this.publish(row, true)
        .then(
          () => this.markSoon(message.eventId),
          (error: Error) => this.publishFailed(error),
        )
        .finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
  }

  /** Publishes until the outbox is empty; returns how many rows were published. Used by tests and shutdown. */
  async flush(): Promise<number> {
    let total = 0;
    for (let published = await this.publishBatch(); published > 0; published = await this.publishBatch()) total += published;
    return total;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      try {
        // While JetStream refuses, committed rows are not published as they commit: the poll takes them at any age.
        const published = await this.publishBatch(this.failures > 0 ? 0 : this.handOverMs);
        this.failures = 0;
        if (published === this.batchSize) continue;
      } catch (error) {
        this.publishFailed(error as Error);
      }
      if (this.failures > 0) {
        // Back off while nothing new commits; a commit wakes it to try at once, so events leave as soon as
        // JetStream answers again (a leader election takes seconds) at the cost of one refused try per commit meanwhile.
        if (!this.woken) await this.sleep(Math.min(5000, 200 * 2 ** this.failures));
        continue;
      }
      if (!this.woken && this.running) await this.sleep(this.pollIntervalMs);
    }
    // Last chance to hand over what was committed before we stop; leftovers stay for the next instance.
    await this.flush().catch(() => undefined);
  }

  private publishFailed(error: Error): void {
    this.failures += 1;
    if (this.failures !== 1 && this.failures % 20 !== 0) return;
    // The stream refuses new events at its byte limit (discard: new); they wait here meanwhile.
    const full = /maximum bytes exceeded/i.test(error.message) ? ' (the event stream is at EVENTS_STREAM_MAX_BYTES: events wait in the outbox)' : '';
    this.logger.warn(`publishing failed (${this.failures}x): ${error.message}${full}`);
  }

  private markSoon(eventId: string): void {
    this.toMark.push(eventId);
    this.markTimer ??= setTimeout(() => void this.markNow(), this.markDelayMs);
  }

  /**
   * Marks the rows published since the last mark, in one statement that does not wait for the disk:
   * a mark lost (database crash, or this failing) only makes the poll publish the rows again, under
   * the same Nats-Msg-Id. The ids are our own UUIDs, written into the statement so that the setting
   * and the update share one implicit transaction in one round trip.
   */
  private markNow(): Promise<void> {
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    const eventIds = this.toMark.filter(isUuid);
    this.toMark = [];
    if (eventIds.length > 0) {
      this.published.inc(eventIds.length);
      const mark: Promise<void> = connectionPool(this.dataSource)
        .query(`SET LOCAL synchronous_commit = off; UPDATE ${this.table} SET published_at = now() WHERE event_id IN ('${eventIds.join("','")}')`)
        .then(
          () => undefined,
          (error: Error) => this.logger.warn(`marking ${eventIds.length} published rows failed (the poll publishes them again): ${error.message}`),
        )
        .finally(() => this.marking.delete(mark));
      this.marking.add(mark);
    }
    return Promise.all(this.marking).then(() => undefined);
  }

  /**
   * One transaction in two round trips: `BEGIN` and the claim of rows at least `minAgeMs` old travel
   * together, then the mark and `COMMIT` (several statements in one simple-protocol message; the only
   * values written into them are numbers: the batch size, the age and the claimed rows' integer ids).
   */
  private async publishBatch(minAgeMs = 0): Promise<number> {
    const client = await connectionPool(this.dataSource).connect();
    let inTransaction = false;
    let broken: Error | undefined;
    try {
      const [, claim] = (await client.query(
        `BEGIN; SELECT id, event_id, subject, payload::text AS payload, trace_id, traceparent FROM ${this.table}
         WHERE published_at IS NULL AND created_at <= now() - interval '${Math.trunc(minAgeMs)} milliseconds'
         ORDER BY id LIMIT ${this.batchSize} FOR UPDATE SKIP LOCKED`,
      )) as unknown as [pg.QueryResult, pg.QueryResult<OutboxRow & { id: number }>];
      inTransaction = true;
      const rows = claim.rows;
      if (rows.length > 0) {
        // Issued in order on one connection, so the stream stores them in order; acks are awaited together.
        await Promise.all(rows.map((row) => this.publish(row)));
        const ids = rows.map((row) => BigInt(row.id).toString()).join(',');
        // The mark does not wait for the disk: lost in a database crash, it only makes the rows go out
        // again under the same Nats-Msg-Id (JetStream drops them in its window; consumers after it).
        // A commit that waits costs the database twice the CPU of one that does not.
        await client.query(`UPDATE ${this.table} SET published_at = now() WHERE id IN (${ids}); SET LOCAL synchronous_commit = off; COMMIT`);
      } else {
        await client.query('COMMIT');
      }
      inTransaction = false;
      this.published.inc(rows.length);
      return rows.length;
    } catch (error) {
      if (inTransaction) await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * One row to JetStream; with tracing on, in a producer span that is a child of the row's traceparent.
   * `first` on the commit path only: its rows were just written, so no publish of them came before.
   * The poll cannot know that of its rows (a lost mark republishes them).
   */
  private publish(row: OutboxRow, first = false): Promise<PubAck> {
    const subject = `${this.options.subjectPrefix}${row.subject}`;
    if (!tracingOn()) return this.js.publish(subject, row.payload, publishOptions(row, row.traceparent ?? undefined, first));
    const { context, span } = startSpan(`publish ${row.subject}`, {
      kind: SpanKind.PRODUCER,
      from: { traceparent: row.traceparent ?? undefined, requestId: row.trace_id ?? undefined },
      attributes: {
        [ATTR_MESSAGING_SYSTEM_NAME]: 'nats',
        [ATTR_MESSAGING_OPERATION_TYPE]: 'send',
        [ATTR_MESSAGING_OPERATION_NAME]: 'publish',
        [ATTR_MESSAGING_DESTINATION_NAME]: subject,
        [ATTR_MESSAGING_MESSAGE_ID]: row.event_id,
      },
    });
    return this.js.publish(subject, row.payload, publishOptions(row, traceparentOf(context), first)).then(
      (ack) => {
        span?.end();
        return ack;
      },
      (error: unknown) => {
        failed(span, error);
        span?.end();
        throw error;
      },
    );
  }

  /** Sleeps until the timeout or a wake-up; true when woken. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve(false);
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve(true);
      };
    });
  }
}
