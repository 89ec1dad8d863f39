import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ConfigValidationError } from '../config/load-config.js';
import { connectRedis, type RedisTarget } from './redis-connection.js';

/** How long the start waits for Redis to answer the check before leaving it for the next start. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * What Redis does at `maxmemory`: `CONFIG GET maxmemory-policy`, or INFO's `maxmemory_policy` where
 * CONFIG is disabled (managed Redis services rename it away).
 */
export async function evictionPolicyOf(redis: Redis): Promise<string> {
  try {
    const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as string[];
    if (policy) return policy;
  } catch {
    // CONFIG disabled: INFO says the same.
  }
  const policy = /^maxmemory_policy:(\S+)/m.exec(await redis.info('memory'))?.[1];
  if (!policy) throw new Error('Redis reports no maxmemory_policy');
  return policy;
}

/**
 * Refuses the start (a ConfigValidationError naming REDIS_URL) when the service's Redis may evict
 * keys: an evicting Redis silently drops queued jobs and their retries, rate-limit counts and
 * sessions when it is full, where `noeviction` refuses the writes and the work is tried again. A
 * Redis that cannot be reached now is left to the next start: the service runs without it as before.
 */
export async function requireNoEviction(target: RedisTarget): Promise<void> {
  const logger = new Logger('Redis');
  const where = redisWhere(target);
  const redis = connectRedis(target, {
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS,
    commandTimeout: CHECK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  let policy: string;
  try {
    await redis.connect();
    policy = await evictionPolicyOf(redis);
  } catch (error) {
    logger.warn(`Redis at ${where} could not be asked its maxmemory-policy (${(error as Error).message}); it is checked at the next start`);
    return;
  } finally {
    redis.disconnect();
  }
  if (policy !== 'noeviction') {
    throw new ConfigValidationError([
      `REDIS_URL: Redis at ${where} evicts keys (maxmemory-policy ${policy}): queued jobs and sessions would be lost; set maxmemory-policy noeviction`,
    ]);
  }
}

/** Host and port, or the Sentinels' primary: never the URL, which may hold a password. */
function redisWhere(target: RedisTarget): string {
  if (target.sentinels.length > 0) return `the primary ${target.masterName} of the Sentinels`;
  const url = new URL(target.url);
  return `${url.hostname}:${url.port || 6379}`;
}
