import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, startTestNatsCluster, type TestNatsCluster } from '@availability/testing';
import { ensureEventStream } from '../events/event-stream.js';
import { consumerConfig, DurableConsumer, ensureDurableConsumer } from './durable-consumer.js';

/**
 * A durable consumer on a three-node cluster whose consumer leader dies (kill -9) while the
 * service's own connection, on another node, stays up: the pull request the service had waiting
 * on the dead leader is gone without a word, and the consumer must notice and pull from the new
 * leader, rather than wait for the pull to run out.
 */
const namespace = { subjectPrefix: 'tdurable.', stream: 'TEST_DURABLE_CLUSTER' };
let cluster: TestNatsCluster;
let observer: NatsConnection;
let jsm: JetStreamManager;
const clients: NatsConnection[] = [];

beforeAll(async () => {
  cluster = await startTestNatsCluster(namespace);
  observer = await cluster.connect();
  jsm = await jetstreamManager(observer);
  await ensureEventStream(jsm, { name: namespace.stream, subjectPrefix: namespace.subjectPrefix, replicas: 3 });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((nc) => nc.close().catch(() => undefined)));
  await observer?.close();
  await cluster?.stop();
});

/** webhook-dispatcher's own client, on one node only, so losing another node does not disconnect it. */
async function serviceClient(node: number): Promise<NatsConnection> {
  const nc = await connect({
    servers: cluster.nodes[node].url,
    name: 'webhook-dispatcher',
    authenticator: nkeyAuthenticator(new TextEncoder().encode(cluster.credentials.services['webhook-dispatcher'].seed)),
    inboxPrefix: `_INBOX.${namespace.subjectPrefix}webhook-dispatcher`,
  });
  clients.push(nc);
  return nc;
}

describe('DurableConsumer on a NATS cluster', () => {
  it('takes events from the new consumer leader soon after the old one dies, well before its pull would have run out', async () => {
    // The dispatcher's consumers as its bus role names them: answers are `webhook-dispatcher-1`.
    const subject = `${namespace.subjectPrefix}offers.response.recorded`;
    const options = { stream: namespace.stream, durableName: 'webhook-dispatcher', filterSubjects: [subject, `${namespace.subjectPrefix}contacts.added`], concurrency: 2 };
    await ensureDurableConsumer(jsm, namespace.stream, { ...consumerConfig(options, 'webhook-dispatcher-1', subject), durable_name: 'webhook-dispatcher-1' });
    const leaderName = await eventually(async () => (await jsm.consumers.info(namespace.stream, 'webhook-dispatcher-1')).cluster?.leader, 20_000, 'a consumer leader');
    const leader = cluster.nodes.findIndex((node) => node.name === leaderName);
    const home = [0, 1, 2].find((node) => node !== leader) as number;
    const nc = await serviceClient(home);

    const handled: string[] = [];
    const consumer = new DurableConsumer(jetstream(nc), await jetstreamManager(nc), options, async (_subject, payload) => {
      handled.push((payload as { id: string }).id);
    });
    await consumer.start();
    const js = jetstream(observer);
    const publish = async (id: string) => {
      // Until the stream has a leader again: a publisher retries with the same id, stored once.
      await eventually(() => js.publish(subject, JSON.stringify({ id }), { msgID: id, timeout: 2_000 }), 30_000, `${id} stored`);
    };
    await publish('before');
    await eventually(() => handled.includes('before'), 10_000, 'the event before the failure');
    // The consumer's pull now waits on the leader.
    await sleep(500);

    await cluster.kill(leader);
    await publish('after');
    // Within a new leader's election and a few seconds: the client's default pull (30 s, heartbeats
    // every 15 s, its consumer check retried after up to 30 s) sat on the lost pull for 20–50 s.
    await eventually(() => handled.includes('after'), 20_000, 'the event after the consumer leader died, from the new leader');
    expect(handled).toEqual(['before', 'after']);
    await consumer.stop();
    await cluster.restart(leader);
  }, 120_000);
});
