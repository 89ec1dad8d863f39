import { Redis, type RedisOptions } from 'ioredis';
import type { ServiceConfig } from '../config/service.config.js';

/** Where a service's Redis is: one server's URL, or Sentinels that name the current primary. */
export interface RedisTarget {
  url: string;
  /** Empty: connect to the URL's host. */
  sentinels: Array<{ host: string; port: number }>;
  /** The primary's name in the Sentinels' configuration. */
  masterName: string;
}

export function redisTarget(config: ServiceConfig): RedisTarget {
  const sentinels = config.REDIS_SENTINELS === '' ? [] : config.REDIS_SENTINELS.split(',').map(parseHostPort);
  return { url: config.REDIS_URL, sentinels, masterName: config.REDIS_SENTINEL_MASTER };
}

/** A target for one server (tests, benchmarks and tools that are given a URL). */
export function redisAt(url: string): RedisTarget {
  return { url, sentinels: [], masterName: '' };
}

/**
 * Every Redis client of the platform is made here, so each one follows a Sentinel failover the same
 * way: ioredis asks the Sentinels for the primary, reconnects to the promoted replica when the
 * primary changes, and refuses to talk to a server that has become a replica. With Sentinels the URL
 * still gives the credentials, database and TLS of the data servers.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  if (target.sentinels.length === 0) return new Redis(target.url, options);
  const url = new URL(target.url);
  return new Redis({
    ...options,
    sentinels: target.sentinels,
    name: target.masterName,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  });
}

function parseHostPort(entry: string): { host: string; port: number } {
  const separator = entry.lastIndexOf(':');
  return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
}
