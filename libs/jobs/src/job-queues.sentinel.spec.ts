import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, redisTarget, ServiceConfig } from '@availability/service-core';
import { eventually, startTestRedisSentinels, type TestRedisSentinels } from '@availability/testing';
import { JobQueues } from './job-queues.js';
import { QueueName } from './queue-name.js';

/**
 * JobQueues reaching Redis through Sentinels, as a service configured with REDIS_SENTINELS does, while
 * the Sentinels move the primary: jobs keep being added and run on the promoted replica.
 */
let redis: TestRedisSentinels;
let prefixes = 0;

beforeAll(async () => {
  redis = await startTestRedisSentinels();
}, 60_000);

afterAll(async () => {
  await redis?.stop();
});

function jobQueues(): JobQueues {
  const config = loadConfig(ServiceConfig, { ...redis.env, REDIS_URL: 'redis://unused-with-sentinels:6379' });
  return new JobQueues({ redis: redisTarget(config), prefix: `sentinel_${++prefixes}` });
}

describe('JobQueues through Redis Sentinels', () => {
  // In this order: a failover with the primary up keeps both servers, killing one leaves none to promote.
  it('leaves a primary the Sentinels demote while it is still up: nothing added after the switch is lost', async () => {
    const jobs = jobQueues();
    try {
      const before = await redis.currentPrimary();
      await redis.failover();
      let switched = false;
      let added = 0;
      const adding = (async () => {
        // Delayed a minute: the jobs stay in Redis, to be counted there.
        while (!switched) await jobs.add(QueueName.Email, 'send', {}, { jobId: `before-${added++}`, delay: 60_000 }).then(() => sleep(20));
      })();
      await eventually(async () => (await redis.currentPrimary()) !== before, 30_000, 'the Sentinels naming the replica');
      switched = true;
      await adding;
      // The +switch-master message and this test's question went to the Sentinels on different connections.
      await sleep(250);
      const after = Array.from({ length: 50 }, (_, i) => `after-${i}`);
      for (const id of after) await jobs.add(QueueName.Email, 'send', {}, { jobId: id, delay: 60_000 });
      // The old primary is made a replica of the new one: what it took after the switch would now be gone.
      await redis.replicasInSync(60_000);
      const queue = jobs.queue(QueueName.Email);
      const missing = [];
      for (const id of after) if (!(await queue.getJob(id))) missing.push(id);
      expect(missing).toEqual([]);
      let kept = 0;
      for (let i = 0; i < added; i++) if (await queue.getJob(`before-${i}`)) kept++;
      // Written to the old primary after the replica stopped following it and before the switch: Redis loses those.
      console.log(`of ${added} jobs added during the failover, ${kept} kept`);
    } finally {
      await jobs.onModuleDestroy();
    }
  }, 120_000);

  it('closing queues and workers leaves no connection to the Sentinels', async () => {
    const jobs = jobQueues();
    jobs.process(QueueName.PushNotification, async () => undefined, { concurrency: 1 });
    await jobs.add(QueueName.PushNotification, 'push', {}, { jobId: 'one' });
    await eventually(async () => (await redis.failoverSubscribers()) > 0, 10_000, 'failover detectors subscribed');
    await jobs.onModuleDestroy();
    await eventually(async () => (await redis.failoverSubscribers()) === 0, 10_000, 'no subscriber left on the Sentinels');
  }, 60_000);

  it('a worker runs jobs on the promoted replica after the primary is killed, and jobs added meanwhile wait for it', async () => {
    const jobs = jobQueues();
    const ran = new Set<string>();
    jobs.process(QueueName.Email, async (job) => void ran.add(job.id as string), { concurrency: 4 });
    try {
      const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `job-${from + i}`);
      for (const id of ids(0, 20)) await jobs.add(QueueName.Email, 'send', {}, { jobId: id, delay: 1_000 });
      // What the primary acknowledged in the last instant may not have reached the replica: wait until it has.
      await redis.replicasInSync();
      const before = await redis.killPrimary();
      // Added while nobody is primary: each waits for the promoted replica.
      await Promise.all(ids(20, 40).map((id) => jobs.add(QueueName.Email, 'send', {}, { jobId: id })));
      await eventually(async () => (await redis.currentPrimary()) !== before, 30_000, 'the Sentinels naming the replica');
      await eventually(() => ran.size === 40, 60_000, 'every job run');
      expect([...ran].sort()).toEqual(ids(0, 40).sort());
      expect(await jobs.ping()).toBe('PONG');
    } finally {
      await jobs.onModuleDestroy();
    }
  }, 120_000);
});
