import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { currentRequestId, currentTraceId, currentTraceparent, metricsRegistry, redisAt, runInTrace } from '@availability/service-core';
import { eventually, freePort, startTestRedisServer } from '@availability/testing';
import { JobQueues, RedisHealth } from './job-queues.js';
import { QueueName } from './queue-name.js';

const jobs = new JobQueues({ redis: redisAt(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: `test_${randomBytes(4).toString('hex')}` });

afterAll(async () => {
  await jobs.queue(QueueName.Email).obliterate({ force: true });
  await jobs.queue(QueueName.PushNotification).obliterate({ force: true });
  await jobs.onModuleDestroy();
});

describe('JobQueues (real Redis)', () => {
  it('runs each job id once, however often it is added, and retries failures', async () => {
    const runs: string[] = [];
    let failedOnce = false;
    jobs.process<{ n: number }>(
      QueueName.Email,
      async (job) => {
        if (job.data.n === 2 && !failedOnce) {
          failedOnce = true;
          throw new Error('smtp down');
        }
        runs.push(job.id as string);
      },
      { concurrency: 4 },
    );
    for (const n of [1, 2, 3]) {
      for (let copy = 0; copy < 3; copy++) {
        await jobs.add(QueueName.Email, 'send', { n }, { jobId: `mail-${n}`, attempts: 3, backoff: { type: 'fixed', delay: 50 } });
      }
    }
    await eventually(() => runs.length === 3, 10_000, 'three jobs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...runs].sort()).toEqual(['mail-1', 'mail-2', 'mail-3']);
    expect(failedOnce).toBe(true);
    expect(await jobs.ping()).toBe('PONG');
  });

  it('runs a job in the trace of the work that added it, and reports queue depth by state', async () => {
    const seen: Array<{ traceId?: string; traceparent?: string; requestId?: string }> = [];
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await runInTrace({ traceparent, requestId: 'request-from-caller' }, () => jobs.add(QueueName.PushNotification, 'push', { n: 1 }, { jobId: 'traced', delay: 400 }));
    const metrics = await metricsRegistry.getSingleMetricAsString('queue_jobs');
    expect(metrics).toMatch(new RegExp(`queue_jobs\\{queue="${QueueName.PushNotification}",state="delayed"\\} 1`));
    expect((await jobs.queue(QueueName.PushNotification).getJob('traced'))?.data).toEqual({ n: 1, traceparent, requestId: 'request-from-caller' });
    jobs.process<{ n: number }>(
      QueueName.PushNotification,
      async () => void seen.push({ traceId: currentTraceId(), traceparent: currentTraceparent(), requestId: currentRequestId() }),
      { concurrency: 1 },
    );
    await eventually(() => seen.length === 1, 10_000, 'the job');
    // Tracing off: the job continues the carried trace with no span of its own.
    expect(seen).toEqual([{ traceId: '0af7651916cd43dd8448eb211c80319c', traceparent, requestId: 'request-from-caller' }]);
  });
});

describe('JobQueues keep a bounded number of finished jobs', () => {
  it('hold at most the configured completed and failed jobs in Redis, whatever a job asks to keep', async () => {
    const prefix = `test_${randomBytes(4).toString('hex')}`;
    const bounded = new JobQueues({ redis: redisAt(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix, kept: { completed: 5, failed: 3 } });
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const finished: string[] = [];
      bounded.process<{ fail: boolean }>(
        QueueName.Email,
        async (job) => {
          finished.push(job.id as string);
          if (job.data.fail) throw new Error('refused');
        },
        { concurrency: 4 },
      );
      // Jobs that name no limit, an age only, or a count above the bound.
      const keeps = [{}, { removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } }, { removeOnComplete: 1_000, removeOnFail: { count: 1_000 } }];
      for (let n = 0; n < 30; n++) {
        await bounded.add(QueueName.Email, 'send', { fail: n % 3 === 0 }, { jobId: `bound-${n}`, ...keeps[n % keeps.length] });
      }
      await eventually(() => finished.length === 30, 20_000, 'every job to finish');
      const queue = bounded.queue(QueueName.Email);
      await eventually(async () => {
        const counts = await queue.getJobCounts('completed', 'failed', 'waiting', 'active');
        return counts.completed <= 5 && counts.failed <= 3 && counts.waiting + counts.active === 0;
      }, 10_000, 'the finished jobs trimmed to the bound');
      // Trimmed jobs leave Redis altogether, their data with them.
      const jobKeys = (await redis.keys(`${prefix}:${QueueName.Email}:bound-*`)).filter((key) => /:bound-\d+$/.test(key));
      expect(jobKeys.length).toBeLessThanOrEqual(5 + 3);
    } finally {
      await bounded.queue(QueueName.Email).obliterate({ force: true });
      await redis.quit();
      await bounded.onModuleDestroy();
    }
  }, 30_000);
});

describe('JobQueues when Redis cannot be reached', () => {
  it('report Redis down within a second, and still stop when asked, without waiting for it', async () => {
    const port = await freePort(); // nothing listens there
    const unreachable = new JobQueues({ redis: redisAt(`redis://127.0.0.1:${port}`), prefix: 'test_unreachable' });
    unreachable.process(QueueName.Email, async () => undefined, { concurrency: 1 });
    const health = new RedisHealth(unreachable);
    const indicators = { check: (key: string) => ({ up: () => ({ [key]: { status: 'up' } }), down: (data: object) => ({ [key]: { status: 'down', ...data } }) }) };
    const checked = await Promise.race([health.check(indicators as never), sleep(2_000, 'still waiting', { ref: false })]);
    expect(checked).toEqual({ redis: { status: 'down', message: expect.any(String) } });
    // A job added meanwhile waits for Redis (it must not be lost while Redis restarts); it cannot hold up the stop.
    const adding = unreachable.add(QueueName.Email, 'send', { n: 1 }, { jobId: 'while-unreachable' }).then(
      () => 'added',
      () => 'failed',
    );
    const stopped = await Promise.race([unreachable.onModuleDestroy().then(() => 'stopped'), sleep(20_000, 'still waiting', { ref: false })]);
    expect(stopped).toBe('stopped');
    expect(await adding).toBe('failed');
  }, 30_000);

  it('stop, without waiting, when Redis went away after its workers ran', async () => {
    const redis = await startTestRedisServer();
    const gone = new JobQueues({ redis: redisAt(redis.url), prefix: 'test_gone' });
    const ran: string[] = [];
    gone.process(QueueName.Email, async (job) => void ran.push(job.id as string), { concurrency: 8 });
    await gone.add(QueueName.Email, 'send', { n: 1 }, { jobId: 'before-redis-went' });
    await eventually(() => ran.length === 1, 10_000, 'the job');
    await redis.stop();
    // A BullMQ worker's close() never settles once its Redis has been gone a few seconds, so the stop must not wait for it.
    await sleep(3_000);
    const stopped = await Promise.race([gone.onModuleDestroy().then(() => 'stopped'), sleep(10_000, 'still waiting', { ref: false })]);
    expect(stopped).toBe('stopped');
  }, 30_000);
});
