import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, createTestEventNamespace, eventually, queryDatabase, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { ensureEventStream } from '../events/event-stream.js';
import { DurableConsumer, isDataRefusal, PoisonMessageError, redeliveryDelay } from './durable-consumer.js';
import { ParkedEventStore, parkedEventsMigration } from './parked-events.js';

let namespace: TestEventNamespace;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  namespace = await createTestEventNamespace();
  nc = await namespace.connect();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureEventStream(jsm, { name: namespace.stream, subjectPrefix: namespace.prefix });
});

afterAll(async () => {
  await nc?.close();
  await namespace?.dispose();
});

const publish = (subject: string, body: unknown) => js.publish(`${namespace.prefix}${subject}`, JSON.stringify(body));

/**
 * Every event the consumer was given was acked or terminated, and none waits for it. An ack is sent
 * without waiting for the server, which may count it a moment after answering the next request: the
 * counts are read until they are 0, for a few seconds, far less than any ack wait that would bring
 * an event back.
 */
async function expectNothingLeft(consumer: string): Promise<void> {
  let left = { unacknowledged: -1, pending: -1 };
  await eventually(
    async () => {
      const info = await jsm.consumers.info(namespace.stream, consumer);
      left = { unacknowledged: info.num_ack_pending, pending: info.num_pending };
      return left.unacknowledged === 0 && left.pending === 0;
    },
    3_000,
    'nothing left for the consumer',
  ).catch(() => undefined);
  expect(left).toEqual({ unacknowledged: 0, pending: 0 });
}

describe('redeliveryDelay', () => {
  it('follows the schedule and repeats its last step', () => {
    expect([1, 2, 3, 9].map((attempt) => redeliveryDelay([10, 20, 30], attempt))).toEqual([10, 20, 30, 30]);
  });
});

describe('isDataRefusal', () => {
  it('is PostgreSQL refusing the values themselves (SQLSTATE class 22), as pg or TypeORM reports it', () => {
    for (const code of ['22P05', '22021', '22001', '22P02', '22003']) {
      expect(isDataRefusal(Object.assign(new Error('refused'), { code }))).toBe(true);
      expect(isDataRefusal(Object.assign(new Error('refused'), { driverError: { code } }))).toBe(true);
    }
  });

  it('is not a database that is down, busy, or in conflict, nor any other failure', () => {
    for (const code of ['08006', '57P01', '53300', '40001', '23505', 'ECONNREFUSED', 22001]) {
      expect(isDataRefusal(Object.assign(new Error('failed'), { code }))).toBe(false);
    }
    expect(isDataRefusal(new Error('timeout'))).toBe(false);
    expect(isDataRefusal(undefined)).toBe(false);
  });
});

describe('DurableConsumer (real JetStream)', () => {
  it('delivers each event once across instances, retries failures, and terminates poison', async () => {
    const handled: string[] = [];
    const attempts = new Map<string, number>();
    const handler = async (_subject: string, payload: unknown) => {
      const { id } = payload as { id: string };
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      if (id === 'poison') throw new PoisonMessageError('cannot be handled');
      if (id === 'flaky' && attempts.get(id) === 1) throw new Error('temporary failure');
      handled.push(id);
    };
    const options = {
      stream: namespace.stream,
      durableName: 'test-handlers',
      filterSubjects: [`${namespace.prefix}offers.>`, `${namespace.prefix}invites.created`],
      concurrency: 4,
      backoffMs: [100],
    };
    const first = new DurableConsumer(js, jsm, options, handler);
    const second = new DurableConsumer(js, jsm, options, handler);
    await first.start();
    await second.start();

    const ids = Array.from({ length: 40 }, (_, i) => `e${i}`);
    for (const id of ids) await publish('offers.created', { id });
    await publish('offers.created', { id: 'flaky' });
    await publish('offers.created', { id: 'poison' });
    // Outside its filters (and outside every later test's, which would otherwise be handed it).
    await publish('webhooks.not-for-us', { id: 'not-for-us' });
    await publish('invites.created', { id: 'invite' });

    await eventually(() => handled.length === 42, 10_000, 'every event to be handled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...handled].sort()).toEqual([...ids, 'flaky', 'invite'].sort());
    expect(attempts.get('flaky')).toBe(2);
    expect(attempts.get('poison')).toBe(1);
    expect(attempts.has('not-for-us')).toBe(false);

    await first.stop();
    await second.stop();
    await expectNothingLeft('test-handlers-1');
  });

  it('lets a handler work for its whole ack wait, however short the back-off after a failure', async () => {
    const attempts = new Map<string, number>();
    const finished: string[] = [];
    const handler = async (_subject: string, payload: unknown) => {
      const { id } = payload as { id: string };
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      if (id === 'flaky' && attempts.get(id) === 1) throw new Error('temporary failure');
      // Slower than the back-off's first step, well within the ack wait.
      if (id === 'slow') await new Promise((resolve) => setTimeout(resolve, 1_200));
      finished.push(id);
    };
    // As earlier versions created it: a JetStream back-off, whose first step the server takes as the ack wait.
    await jsm.consumers.add(namespace.stream, {
      durable_name: 'test-ack-wait',
      ack_policy: AckPolicy.Explicit,
      filter_subject: `${namespace.prefix}offers.slow-handler-test`,
      ack_wait: nanos(5_000),
      backoff: [nanos(200), nanos(1_000)],
      max_deliver: 50,
    });
    const consumer = new DurableConsumer(
      js,
      jsm,
      { stream: namespace.stream, durableName: 'test-ack-wait', filterSubjects: [`${namespace.prefix}offers.slow-handler-test`], concurrency: 4, backoffMs: [200], ackWaitMs: 5_000 },
      handler,
    );
    await consumer.start();
    await publish('offers.slow-handler-test', { id: 'slow' });
    await publish('offers.slow-handler-test', { id: 'flaky' });
    await eventually(() => finished.length === 2, 5_000, 'both events to be handled');
    // A redelivery of the slow event would have come after 200 ms and be in hand by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts.get('slow')).toBe(1);
    // The failure still comes back after the back-off, not after the ack wait.
    expect(attempts.get('flaky')).toBe(2);
    const info = await jsm.consumers.info(namespace.stream, 'test-ack-wait');
    expect((info.config.ack_wait ?? 0) / 1e6).toBe(5_000);

    await consumer.stop();
    await expectNothingLeft('test-ack-wait');
  });

  it('reads a batched subject in batches of what gathered meanwhile, retries its failures, and the other subjects as they come', async () => {
    const arrivals: Array<{ id: string; at: number }> = [];
    const attempts = new Map<string, number>();
    const handler = async (_subject: string, payload: unknown) => {
      const { id } = payload as { id: string };
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      if (id === 'flaky' && attempts.get(id) === 1) throw new Error('temporary failure');
      arrivals.push({ id, at: performance.now() });
    };
    const consumer = new DurableConsumer(
      js,
      jsm,
      {
        stream: namespace.stream,
        durableName: 'test-batched',
        filterSubjects: [`${namespace.prefix}offers.completed`, `${namespace.prefix}offers.withdrawn`],
        readEveryMs: { [`${namespace.prefix}offers.withdrawn`]: 1_500 },
        concurrency: 4,
        backoffMs: [100],
      },
      handler,
    );
    await consumer.start();

    // Eight events 120 ms apart: read as they come, they would arrive in eight bursts.
    const batched = Array.from({ length: 8 }, (_, i) => `w${i}`);
    for (const id of batched) {
      await publish('offers.withdrawn', { id });
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    await publish('offers.withdrawn', { id: 'flaky' });
    await publish('offers.completed', { id: 'prompt' });
    await eventually(() => arrivals.some((a) => a.id === 'prompt'), 1_000, 'the subject read as events come to be handled before the next batch');

    await eventually(() => arrivals.length === 10, 10_000, 'every event to be handled');
    const withdrawn = arrivals.filter((a) => a.id !== 'prompt');
    expect(withdrawn.map((a) => a.id).sort()).toEqual([...batched, 'flaky'].sort());
    expect(attempts.get('flaky')).toBe(2);
    // Bursts: arrivals less than 60 ms apart belong to one read.
    let bursts = 1;
    for (let i = 1; i < withdrawn.length; i++) if (withdrawn[i].at - withdrawn[i - 1].at > 60) bursts++;
    // At most two reads while they were published, and one more for the retried event.
    expect(bursts).toBeLessThanOrEqual(3);

    await consumer.stop();
    await expectNothingLeft('test-batched-2');
  });

  it('shares a batched subject between two instances: each event handled once, nothing left unacknowledged', async () => {
    const handled: Array<{ id: string; by: string }> = [];
    const instance = (name: string) =>
      new DurableConsumer(
        js,
        jsm,
        {
          stream: namespace.stream,
          durableName: 'test-batched-shared',
          filterSubjects: [`${namespace.prefix}offers.shared`],
          readEveryMs: { [`${namespace.prefix}offers.shared`]: 300 },
          concurrency: 4,
        },
        async (_subject, payload) => void handled.push({ id: (payload as { id: string }).id, by: name }),
      );
    const instances = [instance('a'), instance('b')];
    for (const consumer of instances) await consumer.start();

    const ids = Array.from({ length: 60 }, (_, i) => `s${i}`);
    for (const id of ids) {
      await publish('offers.shared', { id });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await eventually(() => handled.length >= ids.length, 10_000, 'every event to be handled');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(handled.map((h) => h.id).sort()).toEqual([...ids].sort());

    for (const consumer of instances) await consumer.stop();
    await expectNothingLeft('test-batched-shared');
  });
});

describe('DurableConsumer with event checking (real JetStream and PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
    await dataSource.query('CREATE SCHEMA consumer');
    await new (parkedEventsMigration('consumer', 1))().up(dataSource.createQueryRunner());
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('parks what does not match its schema or cannot be handled, with the reason, and handles the rest', async () => {
    const handled: string[] = [];
    const store = new ParkedEventStore(dataSource, 'consumer');
    let parkingDown = true;
    const handler = async (_subject: string, payload: unknown) => {
      const { contactId } = payload as { contactId: string };
      if (contactId === POISON) throw new PoisonMessageError('the organisation no longer exists');
      handled.push(contactId);
    };
    const POISON = randomUUID();
    const consumer = new DurableConsumer(
      js,
      jsm,
      {
        stream: namespace.stream,
        durableName: 'test-checked',
        filterSubjects: [`${namespace.prefix}contacts.added`],
        concurrency: 4,
        backoffMs: [100],
        checking: {
          subjectPrefix: namespace.prefix,
          // The first attempt to park fails (the database is away): the event must come back, not be lost.
          park: async (event) => {
            if (parkingDown) {
              parkingDown = false;
              throw new Error('database unavailable');
            }
            await store.park(event);
          },
        },
      },
      handler,
    );
    await consumer.start();
    const contact = () => ({ eventId: randomUUID(), occurredAt: new Date().toISOString(), organisationId: randomUUID(), contactId: randomUUID(), workerId: randomUUID() });
    const valid = [contact(), contact()];
    await publish('contacts.added', valid[0]);
    await publish('contacts.added', { ...contact(), workerId: 42 });
    await js.publish(`${namespace.prefix}contacts.added`, 'not json at all');
    await publish('contacts.added', { ...contact(), contactId: POISON });
    await publish('contacts.added', valid[1]);

    await eventually(async () => (await queryDatabase(database.url, 'SELECT 1 FROM consumer.parked_event')).length === 3, 10_000, 'three events parked');
    await eventually(() => handled.length === 2, 10_000, 'the valid events handled');
    expect(handled.sort()).toEqual(valid.map((v) => v.contactId).sort());
    const parked = await queryDatabase<{ subject: string; reason: string; payload: Buffer }>(
      database.url,
      'SELECT subject, reason, payload FROM consumer.parked_event ORDER BY stream_sequence',
    );
    expect(parked.map((p) => [p.subject, p.reason])).toEqual([
      [`${namespace.prefix}contacts.added`, expect.stringMatching(/^does not match the schema of contacts\.added: \/workerId: /)],
      [`${namespace.prefix}contacts.added`, 'not JSON'],
      [`${namespace.prefix}contacts.added`, 'the organisation no longer exists'],
    ]);
    expect(parked[1].payload.toString('utf8')).toBe('not json at all');
    // Every event was acked or terminated: nothing is left for redelivery (acks reach the server asynchronously).
    await eventually(async () => (await jsm.consumers.info(namespace.stream, 'test-checked')).num_ack_pending === 0, 5_000, 'no event left unacknowledged');
    expect((await jsm.consumers.info(namespace.stream, 'test-checked')).num_pending).toBe(0);
    await consumer.stop();
  });
});
