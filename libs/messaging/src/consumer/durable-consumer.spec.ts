import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { createTestEventNamespace, eventually, type TestEventNamespace } from '@availability/testing';
import { ensureEventStream } from '../events/event-stream.js';
import { DurableConsumer, PoisonMessageError, redeliveryDelay } from './durable-consumer.js';

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

describe('redeliveryDelay', () => {
  it('follows the schedule and repeats its last step', () => {
    expect([1, 2, 3, 9].map((attempt) => redeliveryDelay([10, 20, 30], attempt))).toEqual([10, 20, 30, 30]);
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
    await publish('contacts.added', { id: 'not-for-us' });
    await publish('invites.created', { id: 'invite' });

    await eventually(() => handled.length === 42, 10_000, 'every event to be handled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...handled].sort()).toEqual([...ids, 'flaky', 'invite'].sort());
    expect(attempts.get('flaky')).toBe(2);
    expect(attempts.get('poison')).toBe(1);
    expect(attempts.has('not-for-us')).toBe(false);

    await first.stop();
    await second.stop();
    const info = await jsm.consumers.info(namespace.stream, 'test-handlers-1');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });
});
