import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectRedis, loadConfig, redisTarget, ServiceConfig } from '@availability/service-core';
import { createTestCertificates, eventually, startTestRedisSentinels, type TestCertificates, type TestRedisSentinels } from '@availability/testing';
import { JobQueues } from './job-queues.js';
import { QueueName } from './queue-name.js';

/**
 * Redis behind Sentinels that, like the servers, take TLS connections only, with certificates from a
 * private CA, and require the servers' password (Bitnami's chart with `tls.enabled` and
 * `auth.sentinel`): clients and job queues reach the primary through them and follow a failover.
 * Nothing listens in clear, so every connection that works, the failover detectors' included, is TLS.
 */
const PASSWORD = 'sentinel/tls:secret';
let certificates: TestCertificates;
let redis: TestRedisSentinels;

beforeAll(async () => {
  certificates = await createTestCertificates();
  redis = await startTestRedisSentinels({ tls: certificates, password: PASSWORD });
}, 60_000);

afterAll(async () => {
  await redis?.stop();
  await certificates?.remove();
});

/** What a service configured with these Sentinels and `caFile` connects to. */
function target(caFile = certificates.caFile) {
  return redisTarget(loadConfig(ServiceConfig, { ...redis.env, REDIS_URL: `rediss://:${encodeURIComponent(PASSWORD)}@unused-with-sentinels:6379`, REDIS_CA_FILE: caFile }));
}

describe('Redis behind Sentinels over TLS', () => {
  it('a client and the job queues reach the primary through the Sentinels, and the promoted replica after the primary is killed', async () => {
    expect(redis.sentinels.every((sentinel) => sentinel.startsWith('localhost:'))).toBe(true);
    const client = connectRedis(target(), { maxRetriesPerRequest: null });
    client.on('error', () => undefined); // the dead primary refuses connections until the Sentinels name another
    const jobs = new JobQueues({ redis: target(), prefix: 'sentinel_tls' });
    const ran = new Set<string>();
    jobs.process(QueueName.Email, async (job) => void ran.add(job.id as string), { concurrency: 2 });
    try {
      await client.set('written-before', 'yes');
      expect(await client.get('written-before')).toBe('yes');
      await jobs.add(QueueName.Email, 'send', {}, { jobId: 'before' });
      await eventually(() => ran.has('before'), 10_000, 'the job added before the failover run');
      // The failover detectors subscribed to the Sentinels, over TLS and with the password.
      await eventually(async () => (await redis.failoverSubscribers()) > 0, 10_000, 'failover detectors subscribed');

      await redis.replicasInSync();
      const before = await redis.killPrimary();
      await jobs.add(QueueName.Email, 'send', {}, { jobId: 'during' });
      const after = await eventually(async () => {
        const primary = await redis.currentPrimary();
        return primary !== before && primary;
      }, 20_000, 'the Sentinels naming the replica');
      expect(after).toMatch(/^localhost:\d+$/);
      expect(await client.get('written-before')).toBe('yes');
      await client.set('written-after', 'yes');
      expect(await client.get('written-after')).toBe('yes');
      await jobs.add(QueueName.Email, 'send', {}, { jobId: 'after' });
      await eventually(() => ran.has('during') && ran.has('after'), 20_000, 'the jobs added during and after the failover run');
    } finally {
      client.disconnect();
      await jobs.onModuleDestroy();
    }
  }, 60_000);

  it('a client refuses Sentinels whose certificate another CA signed', async () => {
    const other = await createTestCertificates();
    const client = connectRedis(target(other.caFile), { lazyConnect: true, sentinelRetryStrategy: () => null, maxRetriesPerRequest: 0 });
    const reasons: string[] = [];
    client.on('sentinelError', (error: Error) => reasons.push(error.message));
    client.on('error', () => undefined);
    try {
      // Refused at the Sentinels, before any data server is asked, and the log says why.
      await expect(client.connect()).rejects.toThrow(/^All sentinels are unreachable.*Last error: .*certificate/);
      expect(reasons).toEqual(redis.sentinels.map((sentinel) => expect.stringMatching(new RegExp(`^failed to connect to sentinel ${sentinel} because .*certificate`))));
    } finally {
      client.disconnect();
      await other.remove();
    }
  });

  it('the Sentinels refuse a client with a wrong password', async () => {
    const config = loadConfig(ServiceConfig, { ...redis.env, REDIS_URL: 'rediss://:wrong@unused-with-sentinels:6379', REDIS_CA_FILE: certificates.caFile });
    const client = connectRedis(redisTarget(config), { lazyConnect: true, sentinelRetryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await expect(client.connect()).rejects.toThrow(/^All sentinels are unreachable.*Last error: WRONGPASS/);
    } finally {
      client.disconnect();
    }
  });
});
