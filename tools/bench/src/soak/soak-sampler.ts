import { Redis } from 'ioredis';
import pg from 'pg';
import type { SoakSample } from './soak-figures.js';

/** The tables that grow with answers, offers and pushes; business records (offers, recipients) are not among them. */
const GROWING_TABLES = [
  'dispatcher.delivery',
  'dispatcher.attempt',
  'dispatcher.outbox',
  'notifications.worker_notification',
  'notifications.push_delivery',
  'notifications.offer_answer',
  'offers.outbox',
  'directory.outbox',
];

/** A Prometheus text exposition read into `name{labels}` → value (the first of each). */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.eE+]+|NaN)$/.exec(line);
    if (match && !values.has(match[1])) values.set(match[1], Number(match[2]));
  }
  return values;
}

/**
 * Reads what the soak watches: each service's memory and retention metrics, the growing tables'
 * rows, the event stream's bytes and the platform's Redis keys (by its queue prefix).
 */
export class SoakSampler {
  private readonly database: pg.Client;
  private readonly redis: Redis;

  private constructor(
    private readonly serviceUrls: Record<string, string>,
    databaseUrl: string,
    redisUrl: string,
    private readonly redisPrefix: string,
  ) {
    this.database = new pg.Client({ connectionString: databaseUrl });
    this.redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  }

  static async start(serviceUrls: Record<string, string>, databaseUrl: string, redisUrl: string, redisPrefix: string): Promise<SoakSampler> {
    const sampler = new SoakSampler(serviceUrls, databaseUrl, redisUrl, redisPrefix);
    await sampler.database.connect();
    await sampler.redis.connect();
    return sampler;
  }

  async close(): Promise<void> {
    await this.database.end();
    this.redis.disconnect();
  }

  async sample(at: number): Promise<SoakSample> {
    const memory: SoakSample['memory'] = {};
    const oldestAge: Record<string, number> = {};
    let streamBytes = Number.NaN;
    for (const [app, url] of Object.entries(this.serviceUrls)) {
      const metrics = parseMetrics(await (await fetch(`${url}/metrics`)).text());
      memory[app] = { rss: metrics.get('process_resident_memory_bytes') ?? Number.NaN, heap: metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN };
      for (const [key, value] of metrics) {
        const retention = /^retention_oldest_age_seconds\{class="([^"]+)"\}$/.exec(key);
        if (retention) oldestAge[`${app} ${retention[1]}`] = value;
      }
      if (app === 'contact-directory') streamBytes = metrics.get('jetstream_stream_bytes') ?? Number.NaN;
    }
    const redis = await this.redisUse();
    return { at, memory, rows: await this.rows(), oldestAge, streamBytes, redisKeys: redis.keys, redisBytes: redis.bytes };
  }

  /** How long each retention class keeps rows, seconds (`<app> <class>`), from the services' metrics. */
  async keepSeconds(): Promise<Record<string, number>> {
    const keep: Record<string, number> = {};
    for (const [app, url] of Object.entries(this.serviceUrls)) {
      for (const [key, value] of parseMetrics(await (await fetch(`${url}/metrics`)).text())) {
        const retention = /^retention_keep_seconds\{class="([^"]+)"\}$/.exec(key);
        if (retention) keep[`${app} ${retention[1]}`] = value;
      }
    }
    return keep;
  }

  private tables?: string[];

  private async rows(): Promise<Record<string, number>> {
    if (!this.tables) {
      const found = await this.database.query<{ name: string }>('SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL', [GROWING_TABLES]);
      this.tables = found.rows.map((row) => row.name);
    }
    const tables = this.tables;
    const result = await this.database.query(`SELECT ${tables.map((table, i) => `(SELECT count(*) FROM ${table})::int AS t${i}`).join(', ')}`);
    return Object.fromEntries(tables.map((table, i) => [table, Number(result.rows[0][`t${i}`])]));
  }

  private async redisUse(): Promise<{ keys: number; bytes: number }> {
    let keys = 0;
    let bytes = 0;
    for await (const batch of this.redis.scanStream({ match: `${this.redisPrefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (batch.length === 0) continue;
      keys += batch.length;
      const pipeline = this.redis.pipeline();
      for (const key of batch) pipeline.memory('USAGE', key);
      for (const [, used] of (await pipeline.exec()) ?? []) bytes += Number(used ?? 0);
    }
    return { keys, bytes };
  }
}
