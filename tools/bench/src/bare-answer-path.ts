import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';
import { eventStreamConfig } from '@availability/messaging';
import { classifyBenchProcesses, createTestDatabase, freePort, measureCpu, NatsServerProcess, queryDatabase } from '@availability/testing';
import { NodeProcess } from './node-process.js';
import { paced } from './paced.js';
import { SteadyClient } from './steady-client.js';

/** CPU milliseconds per answer of each part of the bare answer path, and of the five together. */
export interface BareAnswerPathCost {
  rate: number;
  perProcess: Record<BarePart, number>;
  totalMs: number;
}

const PARTS = ['answer server', 'postgres', 'nats', 'dispatcher', 'receiver'] as const;
type BarePart = (typeof PARTS)[number];

const SCRIPTS: Record<'answer server' | 'dispatcher' | 'receiver', string> = {
  'answer server': 'dist/tools/bench/src/bare-answer-path/answer-server.js',
  dispatcher: 'dist/tools/bench/src/bare-answer-path/dispatcher.js',
  receiver: 'dist/tools/bench/src/bare-answer-path/receiver.js',
};

const SUBJECT_PREFIX = 'bare.';
const CONSUMER = 'bare-dispatcher';
const SECRET = 'bare-answer-path-secret-0123456789';

/**
 * What this machine charges for the least an answer's path can do, at a steady rate: HTTP in →
 * one statement (answer and outbox row) → 200 → an acknowledged JetStream publish → a durable
 * consumer → a signed POST → a receiver that checks the signature → ack. Each part is its own
 * process (node:http, pg, nats.js and undici, no framework), on the same PostgreSQL server as the
 * platform's (`adminDatabaseUrl`, in a database of its own) and a nats-server of its own with the
 * platform's stream settings, without authentication (which costs a connection, not a message).
 * The platform's answer crosses the same processes and round trips; what it costs beyond this is
 * what its own code costs (authentication, validation, the frameworks, the delivery log, retries
 * and their bookkeeping, traces, metrics), while this is what the machine charges for the hops.
 */
export async function bareAnswerPathCost(rate: number, seconds: number, signal: AbortSignal, adminDatabaseUrl?: string): Promise<BareAnswerPathCost | undefined> {
  const stops: Array<() => Promise<unknown>> = [];
  const client = new SteadyClient();
  stops.push(() => client.close());
  try {
    const database = await createTestDatabase(adminDatabaseUrl);
    stops.push(() => database.drop());
    await queryDatabase(
      database.url,
      `CREATE TABLE answer (offer_id uuid, worker_id uuid, response text NOT NULL, PRIMARY KEY (offer_id, worker_id));
       CREATE TABLE outbox (id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, subject text NOT NULL, payload json NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`,
    );

    const dir = await mkdtemp(join(tmpdir(), 'ap-bare-nats-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const natsPort = await freePort();
    const configFile = join(dir, 'nats-server.conf');
    await writeFile(configFile, `listen: "127.0.0.1:${natsPort}"\njetstream { store_dir: "${join(dir, 'jetstream')}" }\n`);
    const natsServer = await NatsServerProcess.start(configFile);
    stops.push(() => natsServer.stop());
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const stream = eventStreamConfig({ name: 'BARE', subjectPrefix: SUBJECT_PREFIX });
    const nats = await connect({ servers: natsUrl });
    stops.push(() => nats.close());
    const jsm = await jetstreamManager(nats);
    await jsm.streams.add(stream);
    await jsm.consumers.add(stream.name, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit, ack_wait: nanos(30_000) });

    const receiver = await NodeProcess.start(SCRIPTS.receiver, { SECRET });
    stops.push(() => receiver.stop());
    const dispatcher = await NodeProcess.start(SCRIPTS.dispatcher, { NATS_URL: natsUrl, STREAM: stream.name, CONSUMER, TARGET_URL: `${receiver.url}/offer/response`, SECRET });
    stops.push(() => dispatcher.stop());
    const answerServer = await NodeProcess.start(SCRIPTS['answer server'], { DATABASE_URL: database.url, NATS_URL: natsUrl, SUBJECT: `${SUBJECT_PREFIX}offers.response.recorded` });
    stops.push(() => answerServer.stop());

    const answer = () => client.call(`${answerServer.url}/${randomUUID()}/${randomUUID()}`, 'PUT', {}, '{"response":"applied"}');
    const warm = (await paced(rate, 3, signal, answer)).length; // connections, JIT, the prepared statement
    await sleep(500, undefined, { signal });
    const stop = measureCpu();
    const count = (await paced(rate, seconds, signal, answer)).length;
    // The last webhooks arrive within milliseconds, and the last marks within 100 ms.
    await sleep(1_000, undefined, { signal });
    const usage = await stop(async () => {
      const bench = await classifyBenchProcesses(database.url);
      const parts = new Map<number | undefined, BarePart>([
        [answerServer.pid, 'answer server'],
        [dispatcher.pid, 'dispatcher'],
        [receiver.pid, 'receiver'],
      ]);
      return (info) => {
        const part = parts.get(info.pid);
        if (part) return part;
        if (info.comm === 'nats-server') return info.cmdline.includes(configFile) ? 'nats' : 'other';
        return bench(info) === 'postgres' ? 'postgres' : 'other';
      };
    });
    const received = Number((await client.call(`${receiver.url}/received`, 'GET', {})).text);
    if (!usage || received < warm + count) return undefined;
    const perProcess = Object.fromEntries(PARTS.map((part) => [part, Math.round(((usage.groups[part] ?? 0) / count) * 1000) / 1000])) as Record<BarePart, number>;
    const totalMs = Math.round(PARTS.reduce((sum, part) => sum + perProcess[part], 0) * 1000) / 1000;
    return { rate, perProcess, totalMs };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}
