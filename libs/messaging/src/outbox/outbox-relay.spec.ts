import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventSubject } from '@availability/contracts';
import { createTestDatabase, createTestEventNamespace, eventually, queryDatabase, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { ensureEventStream } from '../events/event-stream.js';
import { FIRST_PUBLICATION } from './first-publication.js';
import { appendToOutbox, OutboxRelay } from './outbox-relay.js';
import {
  createOutboxTableSql,
  newEvent,
  OUTBOX_VACUUM_THRESHOLD,
  type OutboxMessage,
  outboxMessage,
  outboxPayloadTextMigration,
  outboxTraceIdMigration,
  outboxTraceparentMigration,
  outboxVacuumMigration,
} from './outbox.js';

/**
 * The relay over real PostgreSQL and JetStream, connected as offers-api: rows published as their
 * transaction commits, and rows nobody published (their writer died) by the poll once handed over.
 * Each case has its own outbox table and relay.
 */
let namespace: TestEventNamespace;
/** Small, so that a case can fill the stream; larger than the backlog case publishes. */
const STREAM_MAX_BYTES = 8 * 1024 * 1024;
let database: TestDatabase;
let dataSource: DataSource;
let nc: NatsConnection;
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  namespace = await createTestEventNamespace();
  await ensureEventStream(await jetstreamManager(await namespace.connect()), { name: namespace.stream, subjectPrefix: namespace.prefix, maxBytes: STREAM_MAX_BYTES });
  database = await createTestDatabase();
  dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  nc = await namespace.connect('offers-api');
}, 30_000);

afterAll(async () => {
  for (const relay of relays) await relay.onModuleDestroy();
  await nc?.close();
  await dataSource?.destroy();
  await database?.drop();
  await namespace?.dispose();
});

interface RelayUnderTest {
  relay: OutboxRelay;
  schema: string;
  /** Event ids this relay published, in order (the real client's publishes, counted). */
  sent: string[];
  commit: (messages: OutboxMessage[]) => Promise<void>;
  unpublished: (ids: string[]) => Promise<number>;
}

/**
 * A relay that hands rows to the poll after `handOverMs`, over an outbox table in its own schema, or
 * over the table of `sharing` (a second instance of the same service).
 */
async function startRelay(handOverMs: number, sharing?: RelayUnderTest): Promise<RelayUnderTest> {
  const schema = sharing?.schema ?? `relay_${relays.length}`;
  if (!sharing) {
    await dataSource.query(`CREATE SCHEMA ${schema}`);
    for (const statement of createOutboxTableSql(schema)) await dataSource.query(statement);
    for (const migration of [outboxTraceIdMigration(schema, 1), outboxTraceparentMigration(schema, 2), outboxPayloadTextMigration(schema, 3), outboxVacuumMigration(schema, 4)]) {
      // One connection per migration, given back: the pool would run dry over the cases.
      const runner = dataSource.createQueryRunner();
      await new migration().up(runner).finally(() => runner.release());
    }
  }
  const js = jetstream(nc);
  const sent: string[] = [];
  const counting = new Proxy(js, {
    get: (target, property) =>
      property === 'publish'
        ? (subject: string, payload: string, options: { msgID: string }) => {
            sent.push(options.msgID);
            return target.publish(subject, payload, options);
          }
        : Reflect.get(target, property),
  });
  const relay = new OutboxRelay(dataSource, counting, { schema, subjectPrefix: namespace.prefix, pollIntervalMs: 100, handOverMs, markDelayMs: 100 });
  relay.onApplicationBootstrap();
  relays.push(relay);
  return {
    relay,
    schema,
    sent,
    commit: (messages) => dataSource.transaction((manager) => appendToOutbox(manager, schema, messages)),
    async unpublished(ids) {
      const rows = await queryDatabase<{ n: number }>(database.url, `SELECT count(*)::int AS n FROM ${schema}.outbox WHERE published_at IS NULL AND event_id = ANY($1::uuid[])`, [ids]);
      return rows[0].n;
    },
  };
}

function withdrawnEvents(count: number): OutboxMessage[] {
  return Array.from({ length: count }, () =>
    outboxMessage(EventSubject.OfferWithdrawn, newEvent(randomUUID(), { offerId: randomUUID(), title: 'Night pickers', workerIds: [randomUUID()] })),
  );
}

/** How many times each event id was stored in the stream. */
async function storedCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const message of await namespace.messages(EventSubject.OfferWithdrawn)) {
    const id = message.data.eventId as string;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('OutboxRelay', () => {
  it('publishes the rows of a transaction as it commits, then marks them published together', async () => {
    // The poll would take them only after a minute: whatever reaches the stream sooner went as it committed.
    const { relay, commit, unpublished } = await startRelay(60_000);
    const messages = withdrawnEvents(5);
    const ids = messages.map((m) => m.eventId);
    await commit(messages);
    relay.publishCommitted(messages);
    await eventually(async () => {
      const counts = await storedCounts();
      return ids.every((id) => counts.has(id));
    }, 10_000, 'the committed rows in the stream');
    await eventually(async () => (await unpublished(ids)) === 0, 5_000, 'the rows marked published');
    // Once each, in order, with the event id as the message id, each its first publication.
    const inStream = (await namespace.messages(EventSubject.OfferWithdrawn)).filter((m) => ids.includes(m.data.eventId as string));
    expect(inStream.map((m) => m.msgId)).toEqual(ids);
    expect(inStream.map((m) => m.publication)).toEqual(ids.map(() => FIRST_PUBLICATION));
  });

  it('leaves the rows another instance publishes as they commit to that instance', async () => {
    const writer = await startRelay(1_000);
    const neighbour = await startRelay(1_000, writer);
    const messages = withdrawnEvents(20);
    const ids = messages.map((m) => m.eventId);
    for (const message of messages) {
      await writer.commit([message]);
      writer.relay.publishCommitted([message]);
    }
    await eventually(async () => (await writer.unpublished(ids)) === 0, 5_000, 'the rows marked published');
    // Both polls have looked several times since the rows were handed over.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(writer.sent).toEqual(ids);
    expect(neighbour.sent).toEqual([]);
  });

  it('leaves rows its writer never published to the poll, which takes them once they are handed over', async () => {
    const { commit, unpublished } = await startRelay(1_000);
    const messages = withdrawnEvents(3);
    const ids = messages.map((m) => m.eventId);
    const committedAt = Date.now();
    await commit(messages); // as if the writer died between its commit and its publish
    await eventually(async () => (await unpublished(ids)) === 0, 10_000, 'the poll to publish the rows');
    // Not before they were a second old: until then they belong to their writer.
    expect(Date.now() - committedAt).toBeGreaterThanOrEqual(1_000);
    const counts = await storedCounts();
    expect(ids.map((id) => counts.get(id))).toEqual([1, 1, 1]);
    // The poll cannot know whether a row went out before (a lost mark): it does not claim a first publication.
    const inStream = (await namespace.messages(EventSubject.OfferWithdrawn)).filter((m) => ids.includes(m.data.eventId as string));
    expect(inStream.map((m) => m.publication)).toEqual([undefined, undefined, undefined]);
  });

  it('drains a long backlog its writers left (the bus away for hours): every row once, in the order written', async () => {
    const { commit, unpublished, sent } = await startRelay(1_000);
    const messages = withdrawnEvents(10_000);
    const ids = messages.map((m) => m.eventId);
    // Committed and never published by their writers, as while the bus could not be reached.
    for (let i = 0; i < messages.length; i += 1_000) await commit(messages.slice(i, i + 1_000));
    await eventually(async () => (await unpublished(ids)) === 0, 120_000, 'the backlog published');
    expect(sent).toEqual(ids);
    const counts = await storedCounts();
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
  });

  it('keeps an event the full stream refuses in the outbox, and publishes it once the stream has room', async () => {
    const { relay, commit, unpublished, sent } = await startRelay(1_000);
    // Fills the stream up to its limit with events of another publisher.
    const observer = await namespace.connect();
    const js = jetstream(observer);
    const fillers: number[] = [];
    // Large fillers, then smaller ones, until not even the smallest fits.
    for (const size of [16 * 1024, 256, 1]) {
      for (;;) {
        const refused = await js.publish(`${namespace.prefix}offers.filler`, 'x'.repeat(size)).then(
          (ack) => void fillers.push(ack.seq),
          (error: Error) => error,
        );
        if (refused) break;
      }
    }
    const messages = withdrawnEvents(1);
    const [id] = messages.map((m) => m.eventId);
    await commit(messages);
    relay.publishCommitted(messages);
    // Refused as it committed, and by the poll after: the row waits, the stream lacks it.
    await eventually(() => sent.filter((sentId) => sentId === id).length >= 2, 10_000, 'the relay to try twice');
    expect(await unpublished([id])).toBe(1);
    expect((await storedCounts()).has(id)).toBe(false);

    // Room again (as when older events reach their age): the relay's next try publishes it, once.
    const jsm = await jetstreamManager(observer);
    for (const seq of fillers) await jsm.streams.deleteMessage(namespace.stream, seq, false);
    await eventually(async () => (await unpublished([id])) === 0, 15_000, 'the row published');
    expect((await storedCounts()).get(id)).toBe(1);
    await observer.close();
  });

  it('has autovacuum clean its table after a fixed number of published rows, however large the table', async () => {
    const { schema } = await startRelay(1_000);
    const [{ reloptions }] = await queryDatabase<{ reloptions: string[] }>(database.url, `SELECT reloptions FROM pg_class WHERE oid = '${schema}.outbox'::regclass`);
    expect(reloptions).toEqual(
      expect.arrayContaining([
        'autovacuum_vacuum_scale_factor=0',
        `autovacuum_vacuum_threshold=${OUTBOX_VACUUM_THRESHOLD}`,
        'autovacuum_analyze_scale_factor=0',
        `autovacuum_analyze_threshold=${OUTBOX_VACUUM_THRESHOLD}`,
      ]),
    );
  });
});
