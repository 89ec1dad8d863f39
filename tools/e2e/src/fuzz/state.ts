import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import { request } from 'undici';
import type { FuzzWorld } from './world.js';

/** The services' own schemas (docs/architecture.md, "Data ownership"). */
export const SERVICE_SCHEMAS = ['directory', 'offers', 'notifications', 'dispatcher'];

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
  ) {}

  static async open(world: FuzzWorld): Promise<StateProbe> {
    const client = new pg.Client({ connectionString: world.platform.database.url });
    await client.connect();
    const tables = await client.query<{ name: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
        WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`,
      [SERVICE_SCHEMAS],
    );
    const sql = tables.rows
      .map(({ name }) => `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(sum(hashtextextended(t::text, 0)), 0)::text AS print FROM ${name} t`)
      .join(' UNION ALL ');
    const nats = await world.platform.events.connect();
    return new StateProbe(client, sql, nats, await jetstreamManager(nats), world.platform.events.stream, world.urls['example-integrator']);
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
   * Waits until two polls in a row see no change: work set off by an accepted request (events through
   * the outbox, their consumers, webhook calls) is done. Short on purpose: should slower work still
   * change something after a refused request, the check sends that request again before blaming it.
   */
  async settle(timeoutMs = 5_000): Promise<Snapshot> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.snapshot();
    let stable = 0;
    while (stable < 2 && Date.now() < deadline) {
      await sleep(15);
      const next = await this.snapshot();
      stable = changes(last, next).length === 0 ? stable + 1 : 0;
      last = next;
    }
    return last;
  }

  async close(): Promise<void> {
    await this.client.end();
    await this.nats.close();
  }
}

/** What differs between two snapshots, by name. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name));
}
