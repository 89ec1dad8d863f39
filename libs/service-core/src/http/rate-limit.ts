import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { ServiceConfig } from '../config/service.config.js';
import { connectRedis, type RedisTarget, redisTarget } from '../redis/redis-connection.js';
import { LeasedCounter, leasedStore, redisLeases } from './leased-rate-limit-store.js';
import { ProblemException } from './problem.js';
import { clientAddressKey } from './trusted-proxies.js';

export interface RateLimitOptions {
  redis: RedisTarget;
  /** Namespace of the counters in Redis (separates environments and test runs). */
  keyPrefix: string;
  /** The service counting: each service counts its own requests, so each has the whole of its RATE_LIMIT_PER_MINUTE. */
  service: string;
  /** Requests per principal per minute; 0 turns limits off. */
  perMinute: number;
  /** Whom a request's credential belongs to; without it every request is counted by client address. */
  principals?: RateLimitPrincipals;
}

/**
 * Whom a request's credential belongs to, as the service's authentication settles it (libs/auth
 * provides it for the services that verify credentials): a stable name such as `worker:<id>`, or
 * undefined when the request presents none, or one that is unknown, revoked or cannot be verified
 * now. It runs before the request's guards, and must never throw.
 */
export interface RateLimitPrincipals {
  principalOf(request: FastifyRequest): Promise<string | undefined>;
}

/** The Nest provider of a service's RateLimitPrincipals, when it has one (createHttpService looks it up). */
export const RATE_LIMIT_PRINCIPALS = Symbol.for('availability.rate-limit-principals');

export function rateLimitOptions(config: ServiceConfig, service: string): RateLimitOptions {
  return { redis: redisTarget(config), keyPrefix: config.QUEUE_PREFIX, service, perMinute: config.RATE_LIMIT_PER_MINUTE };
}

/** Probes, metrics and public documents are never limited: orchestrators and scrapers must always get through. */
export const RATE_LIMIT_EXEMPT_PATH = /^\/(health(\/live)?|metrics|openapi\.json|docs(\/.*)?|\.well-known\/.*)(\?.*)?$/;

/**
 * Who a request counts against: the principal its credential belongs to (an API key, a worker, a
 * portal user, the operator), whichever header carried the credential; else its client address. A
 * credential nobody holds is counted by address, so a made-up token is no new budget: guessing
 * tokens costs the guesser's own budget of each guess.
 */
export async function rateLimitKey(request: FastifyRequest, principals?: RateLimitPrincipals): Promise<string> {
  // Not counted (allowList), so not worth asking anyone about.
  if (RATE_LIMIT_EXEMPT_PATH.test(request.url)) return 'exempt';
  const principal = await principals?.principalOf(request).catch(() => undefined);
  return principal !== undefined ? `principal:${principal}` : `address:${clientAddressKey(request)}`;
}

/**
 * Limits each principal to `perMinute` requests a minute on this service, counted in Redis so all
 * its instances share one budget (under `<keyPrefix>:rate-limit:<service>:`: each service its own); each instance leases places in that budget a block at a time
 * (LeasedCounter), so a busy principal costs a Redis call per 1 % of its budget, not per request.
 * Over it: 429 problem+json with Retry-After. If Redis cannot be reached requests are let through
 * (limits protect capacity; they must not take the API down with them).
 */
export async function installRateLimit(fastify: FastifyInstance, options: RateLimitOptions): Promise<void> {
  if (options.perMinute <= 0) return;
  const { redis, opened } = connectLimitRedis(options.redis);
  fastify.addHook('onClose', async () => {
    redis.disconnect();
  });
  await opened;
  await fastify.register(rateLimit, {
    global: true,
    max: options.perMinute,
    timeWindow: 60_000,
    store: leasedStore(new LeasedCounter(redisLeases(redis, `${options.keyPrefix}:rate-limit:${options.service}:`))),
    skipOnError: true,
    keyGenerator: (request) => rateLimitKey(request, options.principals),
    allowList: (request) => RATE_LIMIT_EXEMPT_PATH.test(request.url),
    errorResponseBuilder: (_request, context) =>
      new ProblemException(
        429,
        'rate-limited',
        `More than ${context.max} requests a minute with this credential (or, without one, from this address); retry in ${context.after}.`,
        undefined,
        { 'retry-after': String(retryAfterSeconds(context.ttl)) },
      ),
  });
}

/**
 * A budget of one route's own beside the per-credential limit, keyed by what the route names (an
 * e-mail address, a client address): counted the same way, in Redis under `<keyPrefix>:rate-limit:<service>:<name>:`
 * so all instances share it, keys stored only as a hash. If Redis cannot be reached the request is let
 * through, as with the per-credential limit.
 */
export class KeyedRateLimit {
  private readonly redis: Redis;
  private readonly opened: Promise<void>;
  private readonly counter: LeasedCounter;

  constructor(options: Pick<RateLimitOptions, 'redis' | 'keyPrefix' | 'service'>, name: string) {
    ({ redis: this.redis, opened: this.opened } = connectLimitRedis(options.redis));
    this.counter = new LeasedCounter(redisLeases(this.redis, `${options.keyPrefix}:rate-limit:${options.service}:${name}:`));
  }

  /**
   * Counts one request against `key`'s budget of `max` per `windowMs` (0: no limit). Over it: a 429
   * problem with Retry-After, `detail` saying what was limited.
   */
  async take(key: string, max: number, windowMs: number, detail: string): Promise<void> {
    if (max <= 0) return;
    let count: { current: number; ttl: number };
    await this.opened;
    try {
      count = await this.counter.count(keyDigest(key), max, windowMs);
    } catch {
      return;
    }
    if (count.current <= max) return;
    const seconds = retryAfterSeconds(count.ttl);
    throw new ProblemException(429, 'rate-limited', `${detail}; retry in ${seconds} s.`, undefined, { 'retry-after': String(seconds) });
  }

  close(): void {
    this.redis.disconnect();
  }
}

/** What a keyed limit stores of its key (an e-mail address, a client address): a short hash, never the text itself. */
function keyDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);
}

/** Whole seconds until a window ends, at least one: the Retry-After of a 429. */
function retryAfterSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

/** How long a limit waits for Redis: to open its connection, and for nothing after. */
const LIMIT_CONNECT_TIMEOUT_MS = 1_000;

/**
 * The counters' own Redis connection: short timeouts and no offline queue, so a limit never waits on
 * Redis; its errors are dropped here (requests are let through; the health check reports Redis).
 * Without the offline queue a count sent before the connection first opens fails, and a process that
 * has just started would let its first requests through uncounted: `opened` settles when it first
 * opens, or after the connection timeout if Redis cannot be reached, and limits wait for it.
 */
function connectLimitRedis(target: RedisTarget): { redis: Redis; opened: Promise<void> } {
  const redis = connectRedis(target, { connectTimeout: LIMIT_CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  const opened = new Promise<void>((settle) => {
    const timer = setTimeout(done, LIMIT_CONNECT_TIMEOUT_MS);
    redis.once('ready', done);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      settle();
    }
  });
  return { redis, opened };
}
