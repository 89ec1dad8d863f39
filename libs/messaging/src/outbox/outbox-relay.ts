import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { SpanKind } from '@opentelemetry/api';
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
import { type OutboxMessage, outboxTable } from './outbox.js';

export interface OutboxOptions {
  schema: string;
  subjectPrefix: string;
  /** Rows published per transaction. */
  batchSize?: number;
  /** How often the relay looks for rows nobody woke it for (e.g. left by a crashed instance). */
  pollIntervalMs?: number;
  /** How long published rows are kept for inspection before they are deleted. */
  retentionHours?: number;
  /** False leaves rows for another instance's relay (e.g. a dedicated publisher). Default true. */
  enabled?: boolean;
  /**
   * After a wake-up, wait this long before claiming rows, so the commits of a burst share one relay
   * transaction instead of paying four round trips each. Adds at most this much latency. Default 3 ms.
   */
  lingerMs?: number;
}

export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');

interface OutboxRow {
  id: number;
  event_id: string;
  subject: string;
  payload: string;
  /** The request id (see outboxTraceIdMigration). */
  trace_id: string | null;
  traceparent: string | null;
}

/** `Nats-Msg-Id` = eventId (JetStream de-duplicates a row published twice), and the trace's headers. */
function publishOptions(row: OutboxRow, traceparent: string | undefined): Partial<JetStreamPublishOptions> {
  const headers = traceHeaders({ traceparent, requestId: row.trace_id ?? undefined });
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
 * Publishes committed outbox rows to JetStream, in id order, with `Nats-Msg-Id = eventId` so a row
 * published twice (crash after publish, before marking) is stored once. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so any number of service instances can run a relay side by side. Each
 * publish continues the trace of the work that wrote the row (a span when tracing is on).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OutboxRelay');
  private readonly table: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retentionHours: number;
  private readonly lingerMs: number;
  private running = false;
  private loop?: Promise<void>;
  /** Resolves the relay's current sleep early; a plain callback, as an AbortController would build an error per wake-up. */
  private wakeUp?: () => void;
  private woken = false;
  private lastCleanup = 0;
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
    this.retentionHours = options.retentionHours ?? 24;
    this.lingerMs = options.lingerMs ?? 3;
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
    await this.loop;
  }

  /** Called after a transaction that wrote outbox rows commits: publish now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    this.woken = true;
    this.wakeUp?.();
  }

  /** Publishes until the outbox is empty; returns how many rows were published. Used by tests and shutdown. */
  async flush(): Promise<number> {
    let total = 0;
    for (let published = await this.publishBatch(); published > 0; published = await this.publishBatch()) total += published;
    return total;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.woken = false;
      try {
        const published = await this.publishBatch();
        failures = 0;
        if (published === this.batchSize) continue;
        await this.cleanUpOccasionally();
      } catch (error) {
        failures += 1;
        if (failures === 1 || failures % 20 === 0) this.logger.warn(`publishing failed (${failures}x): ${(error as Error).message}`);
      }
      if (failures > 0) {
        // Back off while nothing new commits; a commit wakes it to try at once, so events leave as soon as
        // JetStream answers again (a leader election takes seconds) at the cost of one refused try per commit meanwhile.
        await this.sleep(Math.min(5000, 200 * 2 ** failures));
        continue;
      }
      const woken = this.woken || (this.running && (await this.sleep(this.pollIntervalMs)));
      if (woken && this.running && this.lingerMs > 0) await sleep(this.lingerMs);
    }
    // Last chance to hand over what was committed before we stop; leftovers stay for the next instance.
    await this.flush().catch(() => undefined);
  }

  /**
   * One transaction in two round trips: `BEGIN` and the claim travel together, then the mark and
   * `COMMIT` (several statements in one simple-protocol message; the only values written into them
   * are the batch size and the claimed rows' integer ids). At a trickle every event is a batch of its
   * own, so this is two round trips per event instead of four.
   */
  private async publishBatch(): Promise<number> {
    const client = await connectionPool(this.dataSource).connect();
    let inTransaction = false;
    let broken: Error | undefined;
    try {
      const [, claim] = (await client.query(
        `BEGIN; SELECT id, event_id, subject, payload::text AS payload, trace_id, traceparent FROM ${this.table}
         WHERE published_at IS NULL ORDER BY id LIMIT ${this.batchSize} FOR UPDATE SKIP LOCKED`,
      )) as unknown as [pg.QueryResult, pg.QueryResult<OutboxRow>];
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

  /** One row to JetStream; with tracing on, in a producer span that is a child of the row's traceparent. */
  private publish(row: OutboxRow): Promise<PubAck> {
    const subject = `${this.options.subjectPrefix}${row.subject}`;
    if (!tracingOn()) return this.js.publish(subject, row.payload, publishOptions(row, row.traceparent ?? undefined));
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
    return this.js.publish(subject, row.payload, publishOptions(row, traceparentOf(context))).then(
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

  private async cleanUpOccasionally(): Promise<void> {
    if (Date.now() - this.lastCleanup < 60_000) return;
    this.lastCleanup = Date.now();
    await this.dataSource.query(
      `DELETE FROM ${this.table} WHERE published_at < now() - make_interval(hours => $1)`,
      [this.retentionHours],
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
