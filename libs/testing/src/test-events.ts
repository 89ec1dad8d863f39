import { randomBytes } from 'node:crypto';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { type BusCredentials, type BusService, FIRST_PUBLICATION_HEADER } from '@availability/messaging';
import { Redis } from 'ioredis';
import { startTestNatsCluster, type TestNatsCluster } from './test-nats-cluster.js';
import type { TestCertificates } from './test-certificates.js';
import { startTestNatsServer } from './test-nats-server.js';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** An event as stored in the stream, with the headers the outbox relay sets. */
export interface StoredEvent {
  subject: string;
  data: Record<string, unknown>;
  msgId?: string;
  /** The `x-request-id` of the request that caused the event. */
  traceId?: string;
  /** The FIRST_PUBLICATION_HEADER: `first` when the relay published it as its transaction committed. */
  publication?: string;
  /** When JetStream stored it (epoch ms). */
  storedAt: number;
}

/**
 * A private, authenticated NATS server, event stream and subject prefix for one test suite:
 * services started with these settings (ServiceProcess adds each one's own credentials) publish and
 * consume only here, with the permissions they have in a deployment.
 */
export interface TestEventNamespace {
  stream: string;
  prefix: string;
  env: Record<string, string>;
  /** The services' nkeys and sealing keys on this suite's server. */
  credentials: BusCredentials;
  /** The three-node cluster the namespace lives on, when it was asked for one (its nodes can be killed and restarted). */
  cluster?: TestNatsCluster;
  /**
   * A client of this suite's server: by default the suite's own unrestricted user; a service's name
   * connects as that service (with its permissions), `anonymous` with no credentials.
   */
  connect(as?: BusService | 'observer' | 'anonymous'): Promise<NatsConnection>;
  /** What the suite's NATS server refused so far (publishes, subscriptions, logins), as it logged them. */
  busViolations(): string[];
  /** Every message stored in the stream so far, optionally only one subject (without prefix). */
  messages(subject?: string): Promise<Array<StoredEvent>>;
  /**
   * Stops the suite's NATS server (its stream goes with it) and deletes the queues' keys in Redis (jobs
   * left delayed or failed). Fails if the server refused a service process anything (the suite's own
   * clients, `connect()`, may be refused).
   */
  dispose(): Promise<void>;
}

export interface TestEventNamespaceOptions {
  /** On a three-node NATS cluster, the stream kept on all three (EVENTS_STREAM_REPLICAS=3), instead of one server. */
  natsCluster?: boolean;
  /**
   * A server (or cluster, its routes too) that takes TLS connections only, with these certificates
   * (services get `tls://localhost` and NATS_CA_FILE).
   */
  natsTls?: TestCertificates;
}

export async function createTestEventNamespace(options: TestEventNamespaceOptions = {}): Promise<TestEventNamespace> {
  const id = randomBytes(5).toString('hex');
  const stream = `TEST_${id}`;
  const prefix = `t${id}.`;
  const cluster = options.natsCluster ? await startTestNatsCluster({ subjectPrefix: prefix, stream }, { tls: options.natsTls }) : undefined;
  const server = cluster ?? (await startTestNatsServer({ subjectPrefix: prefix, stream }, { tls: options.natsTls }));
  const nc: NatsConnection = await server.connect();
  const jsm = await jetstreamManager(nc);
  return {
    stream,
    prefix,
    env: {
      EVENTS_STREAM: stream,
      NATS_SUBJECT_PREFIX: prefix,
      NATS_URL: server.url,
      QUEUE_PREFIX: `test_${id}`,
      ...(cluster ? { EVENTS_STREAM_REPLICAS: '3' } : {}),
      ...(options.natsTls ? { NATS_CA_FILE: options.natsTls.caFile } : {}),
    },
    credentials: server.credentials,
    cluster,
    connect: (as) => server.connect(as),
    busViolations: () => server.violations(),
    async messages(subject?: string) {
      const info = await jsm.streams.info(stream).catch(() => undefined);
      if (!info || info.state.messages === 0) return [];
      const name = `reader_${randomBytes(4).toString('hex')}`;
      await jsm.consumers.add(stream, {
        name,
        ack_policy: AckPolicy.None,
        deliver_policy: DeliverPolicy.All,
        filter_subject: subject ? `${prefix}${subject}` : undefined,
        inactive_threshold: 60_000_000_000,
      });
      const consumer = await jetstream(nc).consumers.get(stream, name);
      const out: Array<StoredEvent> = [];
      const pending = (await consumer.info()).num_pending;
      while (out.length < pending) {
        const batch = await consumer.fetch({ max_messages: Math.min(1000, pending - out.length), expires: 2000 });
        let got = 0;
        for await (const message of batch) {
          got += 1;
          out.push({ subject: message.subject.slice(prefix.length), data: message.json(), msgId: message.headers?.get('Nats-Msg-Id'), traceId: message.headers?.get('x-request-id'),
            publication: message.headers?.get(FIRST_PUBLICATION_HEADER) || undefined,
            storedAt: Math.round(message.info.timestampNanos / 1e6),
          });
        }
        if (got === 0) break;
      }
      await jsm.consumers.delete(stream, name).catch(() => undefined);
      return out;
    },
    async dispose() {
      // A service refused anything is a permission its role lacks: it would be refused in production too.
      const refused = server.violations().filter((line) => !line.includes('nats.js:test-'));
      await nc.close();
      await server.stop();
      await deleteKeys(`test_${id}:*`);
      if (refused.length > 0) {
        throw new Error(`the bus refused a service (its role in libs/messaging bus-permissions.ts lacks it):\n${refused.join('\n')}`);
      }
    },
  };
}

/** Best effort: a suite whose Redis is gone has nothing to clean up. */
async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch {
    // left for Redis to keep; they belong to no running service
  } finally {
    redis.disconnect();
  }
}
