import { randomBytes } from 'node:crypto';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';

export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** An event as stored in the stream, with the headers the outbox relay sets. */
export interface StoredEvent {
  subject: string;
  data: Record<string, unknown>;
  msgId?: string;
  /** The `x-request-id` of the request that caused the event. */
  traceId?: string;
  /** When JetStream stored it (epoch ms). */
  storedAt: number;
}

/**
 * A private event stream and subject prefix for one test suite: services started with these
 * settings publish and consume only here, so suites running side by side never see each other.
 */
export interface TestEventNamespace {
  stream: string;
  prefix: string;
  env: Record<string, string>;
  /** Every message stored in the stream so far, optionally only one subject (without prefix). */
  messages(subject?: string): Promise<Array<StoredEvent>>;
  /** Deletes the stream and the queues' keys in Redis (jobs a suite left delayed or failed). */
  dispose(): Promise<void>;
}

export async function createTestEventNamespace(): Promise<TestEventNamespace> {
  const id = randomBytes(5).toString('hex');
  const stream = `TEST_${id}`;
  const prefix = `t${id}.`;
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
  const jsm = await jetstreamManager(nc);
  return {
    stream,
    prefix,
    env: { EVENTS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix, NATS_URL: TEST_NATS_URL, QUEUE_PREFIX: `test_${id}` },
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
            storedAt: Math.round(message.info.timestampNanos / 1e6),
          });
        }
        if (got === 0) break;
      }
      await jsm.consumers.delete(stream, name).catch(() => undefined);
      return out;
    },
    async dispose() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await deleteKeys(`test_${id}:*`);
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
