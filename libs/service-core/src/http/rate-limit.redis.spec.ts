import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { redisAt } from '../redis/redis-connection.js';
import { installRateLimit, KeyedRateLimit } from './rate-limit.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keyPrefix = `test_${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${keyPrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('limits of a process that has just started', () => {
  it('count a keyed limit’s first requests, made while its Redis connection is still being opened', async () => {
    const limit = new KeyedRateLimit({ redis: redisAt(REDIS_URL), keyPrefix, service: 'contact-directory' }, 'fresh');
    try {
      await limit.take('client:203.0.113.1', 1, 60_000, 'Too many');
      await expect(limit.take('client:203.0.113.1', 1, 60_000, 'Too many')).rejects.toMatchObject({ problem: { status: 429 } });
    } finally {
      limit.close();
    }
  });

  it('count the per-credential limit’s first requests', async () => {
    const fastify = Fastify();
    await installRateLimit(fastify, { redis: redisAt(REDIS_URL), keyPrefix, service: 'offers-api', perMinute: 1 });
    fastify.get('/offer', async () => 'ok');
    try {
      const statuses = [];
      for (let i = 0; i < 2; i += 1) statuses.push((await fastify.inject({ method: 'GET', url: '/offer', headers: { authorization: 'Bearer fresh-key' } })).statusCode);
      expect(statuses).toEqual([200, 429]);
    } finally {
      await fastify.close();
    }
  });

  it('still answer, uncounted, when Redis cannot be reached, after at most the connection timeout', async () => {
    const limit = new KeyedRateLimit({ redis: redisAt('redis://127.0.0.1:1'), keyPrefix, service: 'contact-directory' }, 'unreachable');
    try {
      const started = Date.now();
      await limit.take('client:203.0.113.1', 1, 60_000, 'Too many');
      await limit.take('client:203.0.113.1', 1, 60_000, 'Too many');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      limit.close();
    }
  });
});

describe('limits of several services on one Redis', () => {
  it('count a principal on each service apart: its budget spent on one is whole on another', async () => {
    const offers = Fastify();
    const directory = Fastify();
    await installRateLimit(offers, { redis: redisAt(REDIS_URL), keyPrefix, service: 'service-a', perMinute: 2 });
    await installRateLimit(directory, { redis: redisAt(REDIS_URL), keyPrefix, service: 'service-b', perMinute: 2 });
    for (const service of [offers, directory]) service.get('/x', async () => 'ok');
    const call = (service: typeof offers) => service.inject({ method: 'GET', url: '/x', headers: { authorization: 'Bearer shared-principal' } }).then((answer) => answer.statusCode);
    try {
      expect([await call(offers), await call(offers), await call(offers)]).toEqual([200, 200, 429]);
      expect([await call(directory), await call(directory), await call(directory)]).toEqual([200, 200, 429]);
    } finally {
      await offers.close();
      await directory.close();
    }
  });
});
