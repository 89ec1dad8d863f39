import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { LeasedCounter, redisLeases } from './leased-rate-limit-store.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test_${randomBytes(4).toString('hex')}:rate-limit:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('LeasedCounter on Redis', () => {
  it('shares one budget between instances with a call per lease, and keeps the window on the key', async () => {
    const calls: number[] = [];
    const leases = redisLeases(redis, prefix);
    const counted = (units: number, windowMs: number, key: string) => {
      calls.push(units);
      return leases(key, units, windowMs);
    };
    const instances = [new LeasedCounter((k, u, w) => counted(u, w, k)), new LeasedCounter((k, u, w) => counted(u, w, k))];
    const max = 1_000; // leases of 10
    let admitted = 0;
    for (let i = 0; i < 1_100; i += 1) {
      const { current, ttl } = await instances[i % 3 === 0 ? 0 : 1].count('acme', max, 60_000);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      if (current <= max) admitted += 1;
    }
    expect(admitted).toBeLessThanOrEqual(max);
    expect(admitted).toBeGreaterThanOrEqual(max - 2 * 9);
    // 1,100 requests, each instance leasing 10 places at a time: one call per lease, at most one part-used lease each.
    expect(calls.length).toBeLessThanOrEqual(110 + 2);
    expect(Number(await redis.get(`${prefix}acme`))).toBe(calls.length * 10);
    const pttl = await redis.pttl(`${prefix}acme`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });
});
