import { Redis, type RedisOptions, type SentinelConnectionOptions, SentinelConnector } from 'ioredis';
import { caFileOf } from '../config/ca-file.js';
import { ConfigValidationError } from '../config/load-config.js';
import type { ServiceConfig } from '../config/service.config.js';

/** Where a service's Redis is: one server's URL, or Sentinels that name the current primary. */
export interface RedisTarget {
  url: string;
  /** Empty: connect to the URL's host. */
  sentinels: Array<{ host: string; port: number }>;
  /** The primary's name in the Sentinels' configuration. */
  masterName: string;
  /** PEM CA certificates a `rediss://` server's certificate is checked against; absent: the public CAs. */
  ca?: string;
}

export function redisTarget(config: ServiceConfig): RedisTarget {
  const sentinels = config.REDIS_SENTINELS === '' ? [] : config.REDIS_SENTINELS.split(',').map(parseHostPort);
  if (config.REDIS_CA_FILE === '') return { url: config.REDIS_URL, sentinels, masterName: config.REDIS_SENTINEL_MASTER };
  if (!config.REDIS_URL.startsWith('rediss://')) throw new ConfigValidationError(['REDIS_CA_FILE: is set, but REDIS_URL is not a rediss:// URL (TLS)']);
  const ca = caFileOf(config, 'REDIS_CA_FILE');
  return { url: config.REDIS_URL, sentinels, masterName: config.REDIS_SENTINEL_MASTER, ca };
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
  // ioredis turns TLS on for rediss:// by itself; a private CA has to be handed over.
  const tls = target.ca ? { tls: { ca: target.ca } } : {};
  if (target.sentinels.length === 0) return new Redis(target.url, { ...tls, ...options });
  const url = new URL(target.url);
  return new Redis({
    // A demoted primary that is still up (after SENTINEL FAILOVER, or one the Sentinels could not
    // reach) keeps taking writes until the Sentinels make it a replica, seconds later, and its resync
    // then drops them: clients leave it as soon as a Sentinel announces +switch-master.
    failoverDetector: true,
    Connector: FailoverFollowingConnector,
    // A write that reaches a replica (a server demoted behind the client's back) reconnects through
    // the Sentinels and is sent again: refused as READONLY, it had no effect.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    ...options,
    sentinels: target.sentinels,
    name: target.masterName,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    // Through Sentinels, ioredis uses `tls` for the data servers only with enableTLSForSentinelMode.
    ...(url.protocol === 'rediss:' ? { tls: { ...(target.ca ? { ca: target.ca } : {}) }, enableTLSForSentinelMode: true } : {}),
  });
}

/**
 * ioredis's Sentinel connector, except that the failover detector's subscriptions to the Sentinels
 * end with the connection they watch: ioredis ends them on disconnect() but not after quit(), which
 * BullMQ uses for the connections it makes, so they would outlive a closed queue or worker. (The
 * detector is made when the stream connects and replaced at every reconnection.)
 */
class FailoverFollowingConnector extends SentinelConnector {
  // ioredis hands a custom connector the client's options untyped.
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }

  override async connect(eventEmitter: Parameters<SentinelConnector['connect']>[0]): ReturnType<SentinelConnector['connect']> {
    const stream = await super.connect(eventEmitter);
    stream.once('close', () => {
      const self = this as unknown as { failoverDetector: { isDisconnected: boolean; cleanup(): void } | null };
      // Once only, and forgotten so the next connection does not clean it again: every cleanup of
      // subscriptions already closed leaves a 2 s timer behind.
      if (self.failoverDetector && !self.failoverDetector.isDisconnected) self.failoverDetector.cleanup();
      self.failoverDetector = null;
    });
    return stream;
  }
}

function parseHostPort(entry: string): { host: string; port: number } {
  const separator = entry.lastIndexOf(':');
  return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
}
