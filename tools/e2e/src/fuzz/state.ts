import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Queue } from 'bullmq';
import pg from 'pg';
import { request } from 'undici';
import { QueueName } from '@availability/jobs';
import { TEST_REDIS_URL } from '@availability/testing';
import type { FuzzWorld } from './world.js';

/** The services' own schemas (docs/architecture.md, "Data ownership"). */
export const SERVICE_SCHEMAS = ['directory', 'offers', 'notifications', 'dispatcher'];

/**
 * How long nothing may change before the state counts as settled: longer than the services wait to
 * write a batch (the dispatcher's attempt log lingers 50 ms).
 */
const STABLE_FOR_MS = 60;
/** A delayed job due this soon is work in hand (settle waits for it). */
const DUE_SOON_MS = 3_000;

/** A fingerprint of everything a request could change: each table, the event stream, the example integrator's log. */
export type Snapshot = Map<string, string>;

/**
 * Takes snapshots cheaply enough to take one after every rejected request: one SQL statement gives
 * each table's row count and the sum of a 64-bit hash of every row (order-free, no sort), plus the
 * stream's last sequence number and a hash of what the example integrator has received.
 */
export class StateProbe {
  private constructor(
    private readonly client: pg.Client,
    private readonly sql: string,
    private readonly nats: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly integratorUrl: string,
    private readonly queues: Queue[],
  ) {}

  static async open(world: FuzzWorld): Promise<StateProbe> {
    const client = new pg.Client({ connectionString: world.platform.database.url });
    await client.connect();
    const tables = await client.query<{ name: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
        WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`,
      [SERVICE_SCHEMAS],
    );
    // An outbox row is the event a change wrote; its relay marks it published a moment later, which
    // is no change of anyone's state: outboxes are fingerprinted by the events they hold.
    const rowText = (name: string) => (name.endsWith('.outbox') ? 't.event_id::text' : 't::text');
    const sql = tables.rows
      .map(({ name }) => `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(sum(hashtextextended(${rowText(name)}, 0)), 0)::text AS print FROM ${name} t`)
      .join(' UNION ALL ');
    const nats = await world.platform.events.connect();
    const connection = { url: world.platform.env.REDIS_URL ?? TEST_REDIS_URL };
    const queues = Object.values(QueueName).map((name) => new Queue(name, { connection, prefix: world.platform.env.QUEUE_PREFIX }));
    return new StateProbe(client, sql, nats, await jetstreamManager(nats), world.platform.events.stream, world.urls['example-integrator'], queues);
  }

  /** The tables fingerprinted, for the report. */
  get tableCount(): number {
    return this.sql.split(' UNION ALL ').length;
  }

  async snapshot(): Promise<Snapshot> {
    const [rows, stream, received] = await Promise.all([
      this.client.query<{ name: string; print: string }>(this.sql),
      this.jsm.streams.info(this.stream).catch(() => undefined),
      request(`${this.integratorUrl}/received`).then((response) => response.body.text()),
    ]);
    const snapshot: Snapshot = new Map(rows.rows.map((row) => [row.name, row.print]));
    snapshot.set('event stream (last sequence)', String(stream?.state.last_seq ?? 0));
    snapshot.set('example-integrator GET /received', createHash('sha256').update(received).digest('hex').slice(0, 16));
    return snapshot;
  }

  /**
   * Waits until polls see no change and no job in hand for STABLE_FOR_MS: work set off by an
   * accepted request (events through the outbox, their consumers, jobs, webhook calls) is done. A job
   * changes nothing while it waits or runs (an e-mail on its way to the SMTP server, then its offer
   * marked closed), so the tables alone would look settled too soon. Jobs put back for a moment count;
   * jobs due later (retries, digests an hour away) do not. Short on purpose: should slower work still
   * change something after a refused request, the check sends that request again before blaming it.
   */
  async settle(timeoutMs = 5_000): Promise<Snapshot> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.snapshot();
    let stableSince: number | undefined;
    while (Date.now() < deadline) {
      await sleep(15);
      const [next, jobs] = await Promise.all([this.snapshot(), this.jobsInHand()]);
      if (changes(last, next).length > 0 || jobs > 0) stableSince = undefined;
      else stableSince ??= Date.now();
      last = next;
      if (stableSince !== undefined && Date.now() - stableSince >= STABLE_FOR_MS) break;
    }
    return last;
  }

  /**
   * Jobs waiting, running, or put back for a moment (an endpoint busy, an attempt another job is
   * making: due within DUE_SOON_MS); not retries and digests due an hour away.
   */
  private async jobsInHand(): Promise<number> {
    const dueBy = Date.now() + DUE_SOON_MS;
    const counts = await Promise.all(this.queues.flatMap((queue) => [queue.getJobCountByTypes('waiting', 'active', 'prioritized'), queue.getDelayedCount(dueBy)]));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    await this.client.end();
    await this.nats.close();
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}

/** What differs between two snapshots, by name. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name));
}
