import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceConfig } from '../config/service.config.js';
import { connectRedis, type RedisTarget, redisTarget } from '../redis/redis-connection.js';
import { LeasedCounter, leasedStore, redisLeases } from './leased-rate-limit-store.js';
import { ProblemException } from './problem.js';

export interface RateLimitOptions {
  redis: RedisTarget;
  /** Namespace of the counters in Redis (separates environments and test runs). */
  keyPrefix: string;
  /** Requests per credential per minute; 0 turns limits off. */
  perMinute: number;
}

export function rateLimitOptions(config: ServiceConfig): RateLimitOptions {
  return { redis: redisTarget(config), keyPrefix: config.QUEUE_PREFIX, perMinute: config.RATE_LIMIT_PER_MINUTE };
}

/** Probes, metrics and public documents are never limited: orchestrators and scrapers must always get through. */
export const RATE_LIMIT_EXEMPT_PATH = /^\/(health(\/live)?|metrics|openapi\.json|docs(\/.*)?|\.well-known\/.*)(\?.*)?$/;

/**
 * Who a request counts against: the credential it presents (API key, worker, portal or operator
 * token; only a hash of it is kept), else the client address. A credential need not be valid to be
 * counted: guessing tokens costs the guesser's own budget of each guess.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  const apiKey = request.headers['x-api-key'];
  const credential = typeof authorization === 'string' && authorization !== '' ? authorization.replace(/^Bearer\s+/i, '').trim() : typeof apiKey === 'string' ? apiKey : '';
  if (credential !== '') return `credential:${createHash('sha256').update(credential, 'utf8').digest('base64url').slice(0, 22)}`;
  return `address:${request.ip}`;
}

/**
 * Limits each credential to `perMinute` requests a minute on this service, counted in Redis so all
 * instances share one budget; each instance leases places in that budget a block at a time
 * (LeasedCounter), so a busy credential costs a Redis call per 1 % of its budget, not per request.
 * Over it: 429 problem+json with Retry-After. If Redis cannot be reached requests are let through
 * (limits protect capacity; they must not take the API down with them).
 */
export async function installRateLimit(fastify: FastifyInstance, options: RateLimitOptions): Promise<void> {
  if (options.perMinute <= 0) return;
  const redis = connectRedis(options.redis, { connectTimeout: 1_000, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined); // skipOnError lets requests through; the health check reports Redis
  fastify.addHook('onClose', async () => {
    redis.disconnect();
  });
  await fastify.register(rateLimit, {
    global: true,
    max: options.perMinute,
    timeWindow: 60_000,
    store: leasedStore(new LeasedCounter(redisLeases(redis, `${options.keyPrefix}:rate-limit:`))),
    skipOnError: true,
    keyGenerator: rateLimitKey,
    allowList: (request) => RATE_LIMIT_EXEMPT_PATH.test(request.url),
    errorResponseBuilder: (_request, context) =>
      new ProblemException(
        429,
        'rate-limited',
        `More than ${context.max} requests a minute with this credential; retry in ${context.after}.`,
        undefined,
        { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      ),
  });
}
