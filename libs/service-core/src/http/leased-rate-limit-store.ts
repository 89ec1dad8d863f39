import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { TtlCache } from '../cache/ttl-cache.js';

/** What the shared counter answers when a process takes a lease: the counter after it, and the window's time left. */
export interface LeaseGrant {
  total: number;
  ttlMs: number;
}

/** Adds `units` to a key's count in the shared window (created with `windowMs` to live if new). */
export type TakeLease = (key: string, units: number, windowMs: number) => Promise<LeaseGrant>;

/** What @fastify/rate-limit asks a store: this request's place in the key's window, and the time the window has left. */
export interface RateLimitCount {
  current: number;
  ttl: number;
}

/**
 * Share of a key's budget one process leases at a time: at most this fraction of the budget can sit
 * unused in one process (so other instances are refused up to 1 % early), and a busy credential
 * costs one shared-counter call per this fraction of its budget instead of one per request.
 */
const LEASE_SHARE = 100;
/** Largest lease, whatever the budget. */
const MAX_LEASE = 100;
/** Leases one request may wait for before it is let through uncounted (as when Redis is down). */
const MAX_ROUNDS = 64;
/** Keys whose lease a process remembers; the oldest is forgotten first (a later request takes a new lease). */
const MAX_KEYS = 100_000;

/** Units leased per shared-counter call for a budget of `max`: 1 for small budgets, so they are counted exactly. */
export function leaseUnits(max: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(max / LEASE_SHARE)));
}

interface Lease {
  /** The next place in the window this process hands out. */
  next: number;
  /** The last place it holds. */
  end: number;
  resetAt: number;
}

/**
 * Counts requests against a budget shared by every instance without a shared-counter call per
 * request: a process leases a block of places in the key's window at once (INCRBY on the shared
 * counter) and hands them out locally, one per request. The counter never admits more than the
 * budget across instances (places past it are refusals); what a process leased and did not use is
 * lost to the others until the window ends. A budget under 200 a window leases one place at a time,
 * which is exactly the per-request count.
 */
export class LeasedCounter {
  private readonly leases: TtlCache<string, Lease>;
  /** One lease call at a time per key: requests arriving meanwhile wait for it. */
  private readonly leasing = new Map<string, Promise<void>>();

  constructor(
    private readonly takeLease: TakeLease,
    private readonly now: () => number = Date.now,
  ) {
    this.leases = new TtlCache<string, Lease>(MAX_KEYS, now);
  }

  async count(key: string, max: number, windowMs: number): Promise<RateLimitCount> {
    // Each round waits for one lease; the bound only guards against a counter that keeps no window.
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const lease = this.leases.get(key);
      const now = this.now();
      if (lease && lease.next <= lease.end && lease.resetAt > now) {
        const current = lease.next;
        lease.next += 1;
        return { current, ttl: lease.resetAt - now };
      }
      await (this.leasing.get(key) ?? this.lease(key, leaseUnits(max), windowMs));
    }
    throw new Error(`rate limit counter for ${key} grants no places`);
  }

  private lease(key: string, units: number, windowMs: number): Promise<void> {
    const leased = this.takeLease(key, units, windowMs)
      .then(({ total, ttlMs }) => {
        const ttl = ttlMs > 0 ? ttlMs : windowMs;
        this.leases.set(key, { next: total - units + 1, end: total, resetAt: this.now() + ttl }, ttl);
      })
      .finally(() => this.leasing.delete(key));
    this.leasing.set(key, leased);
    return leased;
  }
}

/** INCRBY and the window's time left in one round trip; a new key gets the window as its expiry. */
const LEASE_SCRIPT = `
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {total, ttl}`;

type RedisWithLease = Redis & {
  rateLimitLease(key: string, units: number, windowMs: number): Promise<[number, number]>;
};

/** The shared counter in Redis, one key per credential under `keyPrefix`. */
export function redisLeases(redis: Redis, keyPrefix: string): TakeLease {
  if (!('rateLimitLease' in redis)) redis.defineCommand('rateLimitLease', { numberOfKeys: 1, lua: LEASE_SCRIPT });
  return async (key, units, windowMs) => {
    const [total, ttlMs] = await (redis as RedisWithLease).rateLimitLease(`${keyPrefix}${key}`, units, windowMs);
    return { total, ttlMs };
  };
}

/** The store interface @fastify/rate-limit calls (`store` option): a class it constructs itself. */
export function leasedStore(counter: LeasedCounter): FastifyRateLimitStoreCtor {
  return class LeasedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: RateLimitCount) => void, timeWindow: number, max: number): void {
      counter.count(key, max, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    /** Routes with a limit of their own are not used: every route shares the service's budget. */
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
