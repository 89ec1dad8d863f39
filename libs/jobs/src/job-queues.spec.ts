import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { currentRequestId, currentTraceId, currentTraceparent, metricsRegistry, redisAt, runInTrace } from '@availability/service-core';
import { eventually } from '@availability/testing';
import { JobQueues } from './job-queues.js';
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
