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
 *
 * One rule for the Sentinels: they speak TLS exactly when the data servers do (`rediss://`), checked
 * against the same CA and their host names in REDIS_SENTINELS, and over TLS they are given the URL's
 * user name and password too (Bitnami's chart, with TLS and `auth.sentinel`, sets them up so). In
 * clear they are given no password: it would cross the network as it is.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  // ioredis turns TLS on for rediss:// by itself; a private CA has to be handed over.
  const tls = target.ca ? { tls: { ca: target.ca } } : {};
  if (target.sentinels.length === 0) return new Redis(target.url, { ...tls, ...options });
  const url = new URL(target.url);
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
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
    username,
    password,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    ...(url.protocol === 'rediss:'
      ? {
          // ioredis takes `tls` for the data servers only with enableTLSForSentinelMode, and
          // `sentinelTLS` for every connection to a Sentinel: asking for the primary and the failover
          // detector's subscriptions alike. Each checks the host name it connects to.
          tls: { ...(target.ca ? { ca: target.ca } : {}) },
          enableTLSForSentinelMode: true,
          sentinelTLS: { ...(target.ca ? { ca: target.ca } : {}) },
          sentinelUsername: username,
          sentinelPassword: password,
        }
      : {}),
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
    keepSentinelRefusalReasons(this);
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

/**
 * ioredis asks a Sentinel for the primary on a connection that does not retry, and when that
 * connection fails it reports only "Connection is closed.": a Sentinel whose certificate is not
 * trusted would read in the log like one that is down. The reason the connection gave is reported
 * instead. (Both methods are ioredis internals; without them nothing changes.)
 */
function keepSentinelRefusalReasons(connector: SentinelConnector): void {
  type Internals = { connectToSentinel?: (this: unknown, ...args: unknown[]) => Redis; resolve?: (this: unknown, endpoint: unknown) => Promise<unknown> };
  const internals = connector as unknown as Internals;
  const { connectToSentinel, resolve } = internals;
  if (typeof connectToSentinel !== 'function' || typeof resolve !== 'function') return;
  /** Set while resolve() opens its connection (before it first waits); the failover detector's are left alone. */
  let resolving: { reason?: Error } | undefined;
  internals.connectToSentinel = function (this: unknown, ...args: unknown[]) {
    const client = connectToSentinel.apply(this, args);
    const connection = resolving;
    resolving = undefined;
    if (connection) client.once('error', (error: Error) => (connection.reason = error));
    return client;
  };
  internals.resolve = async function (this: unknown, endpoint: unknown) {
    const connection: { reason?: Error } = {};
    resolving = connection;
    let answer: Promise<unknown>;
    try {
      answer = resolve.call(this, endpoint);
    } finally {
      resolving = undefined;
    }
    try {
      return await answer;
    } catch (error) {
      throw connection.reason ?? error;
    }
  };
}

function parseHostPort(entry: string): { host: string; port: number } {
  const separator = entry.lastIndexOf(':');
  return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
}
