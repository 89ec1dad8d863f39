import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { eventually } from './service-process.js';
import { startTestRedisSentinels, type TestRedisSentinels } from './test-redis-sentinels.js';

let redis: TestRedisSentinels;

beforeAll(async () => {
  redis = await startTestRedisSentinels({ masterName: 'harness' });
}, 60_000);

afterAll(async () => {
  await redis?.stop();
});

describe('a primary, a replica and three Sentinels', () => {
  it('promote the replica when the primary is killed, with what it had before it was cut off', async () => {
    const sentinels = redis.sentinels.map((entry) => ({ host: '127.0.0.1', port: Number(entry.split(':')[1]) }));
    const client = new Redis({ sentinels, name: redis.masterName, maxRetriesPerRequest: null });
    client.on('error', () => undefined); // the dead primary refuses connections until the Sentinels name another
    try {
      await client.set('written-before', 'yes');
      // WAIT: the replica has it, so the failover cannot lose it.
      expect(await client.wait(1, 5_000)).toBe(1);
      await redis.cutOffReplica();
      await client.set('written-after-cut', 'yes');
      const before = await redis.currentPrimary();
      expect(await redis.killPrimary()).toBe(before);
      const after = await eventually(async () => {
        const primary = await redis.currentPrimary();
        return primary !== before && primary;
      }, 30_000, 'the Sentinels naming a new primary');
      expect(after).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(await client.get('written-before')).toBe('yes');
      expect(await client.get('written-after-cut')).toBeNull();
      await client.set('written-after', 'yes');
      expect(await client.get('written-after')).toBe('yes');
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
