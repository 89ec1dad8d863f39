import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { loadConfig } from '../config/load-config.js';
import { ServiceConfig } from '../config/service.config.js';
import { connectRedis, redisTarget } from './redis-connection.js';

describe('Redis connections', () => {
  it('go to REDIS_URL’s server when no Sentinels are configured', () => {
    const config = loadConfig(ServiceConfig, { REDIS_URL: 'redis://:pw@redis.internal:6380/2' });
    expect(redisTarget(config)).toEqual({ url: 'redis://:pw@redis.internal:6380/2', sentinels: [], masterName: 'platform' });
    const redis = connectRedis(redisTarget(config), { lazyConnect: true });
    expect([redis.options.host, redis.options.port, redis.options.password, redis.options.db, redis.options.sentinels]).toEqual(['redis.internal', 6380, 'pw', 2, null]);
    redis.disconnect();
  });

  it('ask the Sentinels for the named primary, with REDIS_URL’s credentials, database and TLS, and watch them for a switch', () => {
    const config = loadConfig(ServiceConfig, {
      REDIS_URL: 'rediss://jobs:s%40cret@ignored:6379/3',
      REDIS_SENTINELS: 'sentinel-0.redis:26379,sentinel-1.redis:26379,10.0.0.7:26380',
      REDIS_SENTINEL_MASTER: 'platform-jobs',
    });
    const redis = connectRedis(redisTarget(config), { lazyConnect: true, maxRetriesPerRequest: null });
    expect(redis.options).toMatchObject({
      sentinels: [
        { host: 'sentinel-0.redis', port: 26379 },
        { host: 'sentinel-1.redis', port: 26379 },
        { host: '10.0.0.7', port: 26380 },
      ],
      name: 'platform-jobs',
      username: 'jobs',
      password: 's@cret',
      db: 3,
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
      sentinelUsername: 'jobs',
      sentinelPassword: 's@cret',
      failoverDetector: true,
      maxRetriesPerRequest: null,
    });
    redis.disconnect();
  });

  it('ask the Sentinels over TLS, with the URL’s credentials and the same CA, exactly when the data servers are reached over TLS', () => {
    const ca = '-----BEGIN CERTIFICATE-----\nprivate CA\n-----END CERTIFICATE-----\n';
    const sentinels = [{ host: 'sentinel-0.redis', port: 26379 }];
    const overTls = connectRedis({ url: 'rediss://:pw@ignored:6379/0', sentinels, masterName: 'platform', ca }, { lazyConnect: true });
    expect(overTls.options).toMatchObject({ tls: { ca }, enableTLSForSentinelMode: true, sentinelTLS: { ca }, sentinelPassword: 'pw', password: 'pw' });
    // Every connection to a Sentinel, the failover detector's included, is made by the connector from these options.
    const connector = (overTls as unknown as { connector: { connectToSentinel(endpoint: object, options: object): Redis } }).connector;
    const sentinel = connector.connectToSentinel(sentinels[0], { lazyConnect: true });
    expect(sentinel.options).toMatchObject({ host: 'sentinel-0.redis', port: 26379, tls: { ca }, password: 'pw' });
    sentinel.disconnect();
    overTls.disconnect();

    const inClear = connectRedis({ url: 'redis://:pw@ignored:6379/0', sentinels, masterName: 'platform' }, { lazyConnect: true });
    const { password, tls, enableTLSForSentinelMode, sentinelTLS, sentinelUsername, sentinelPassword } = inClear.options;
    expect({ password, tls, enableTLSForSentinelMode, sentinelTLS, sentinelUsername, sentinelPassword }).toEqual({ password: 'pw', enableTLSForSentinelMode: false });
    // In clear, the password goes to the data servers only.
    const plainSentinel = (inClear as unknown as { connector: typeof connector }).connector.connectToSentinel(sentinels[0], { lazyConnect: true });
    expect([plainSentinel.options.tls, plainSentinel.options.password]).toEqual([undefined, null]);
    plainSentinel.disconnect();
    inClear.disconnect();
  });

  it('refuse a Sentinel list that is not host:port pairs, and a replica count JetStream does not make sense of', () => {
    expect(() => loadConfig(ServiceConfig, { REDIS_SENTINELS: 'sentinel-0.redis' })).toThrow(/REDIS_SENTINELS/);
    expect(() => loadConfig(ServiceConfig, { REDIS_SENTINELS: 'a:1, b:2' })).toThrow(/REDIS_SENTINELS/);
    expect(loadConfig(ServiceConfig, { EVENTS_STREAM_REPLICAS: '3' }).EVENTS_STREAM_REPLICAS).toBe(3);
    expect(() => loadConfig(ServiceConfig, { EVENTS_STREAM_REPLICAS: '2' })).toThrow(/EVENTS_STREAM_REPLICAS/);
  });

  it('take REDIS_CA_FILE only with a rediss:// URL, and say when the file cannot serve', () => {
    expect(() => redisTarget(loadConfig(ServiceConfig, { REDIS_URL: 'redis://redis.internal:6379', REDIS_CA_FILE: '/etc/platform/redis-ca.pem' }))).toThrow(
      /REDIS_CA_FILE: is set, but REDIS_URL is not a rediss:\/\/ URL/,
    );
    expect(() => redisTarget(loadConfig(ServiceConfig, { REDIS_URL: 'rediss://redis.internal:6379', REDIS_CA_FILE: '/nowhere/redis-ca.pem' }))).toThrow(
      /REDIS_CA_FILE: the CA file cannot be read \(ENOENT\)/,
    );
  });
});

