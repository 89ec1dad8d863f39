import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort, startTestRedisServer, type TestRedisServer } from '@availability/testing';
import { ConfigValidationError, redisAt, requireNoEviction } from '@availability/service-core';

/**
 * The start-up check of Redis's maxmemory-policy every service that uses Redis makes, against real
 * redis-servers (a service refusing to start on one: apps/webhook-dispatcher/test/redis-policy.int.spec.ts).
 */
const servers: TestRedisServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function redisWith(options: Parameters<typeof startTestRedisServer>[0]): Promise<TestRedisServer> {
  const server = await startTestRedisServer(options);
  servers.push(server);
  return server;
}

describe('requireNoEviction', () => {
  it('lets a start go on with a Redis that refuses writes when full (noeviction)', async () => {
    await expect(requireNoEviction(redisAt((await redisWith({})).url))).resolves.toBeUndefined();
  });

  it('refuses a start with a Redis that evicts, naming REDIS_URL, where it is and its policy', async () => {
    const server = await redisWith({ maxmemoryPolicy: 'allkeys-lru' });
    const refused = await requireNoEviction(redisAt(server.url)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigValidationError);
    const port = new URL(server.url).port;
    expect((refused as ConfigValidationError).problems).toEqual([
      `REDIS_URL: Redis at 127.0.0.1:${port} evicts keys (maxmemory-policy allkeys-lru): queued jobs and sessions would be lost; set maxmemory-policy noeviction`,
    ]);
  });

  it('reads the policy from INFO where CONFIG is disabled', async () => {
    const evicting = await redisWith({ maxmemoryPolicy: 'volatile-ttl', configCommand: false });
    await expect(requireNoEviction(redisAt(evicting.url))).rejects.toThrow(/maxmemory-policy volatile-ttl/);
    const safe = await redisWith({ configCommand: false });
    await expect(requireNoEviction(redisAt(safe.url))).resolves.toBeUndefined();
  });

  it('leaves a Redis it cannot reach to the next start, without waiting for it', async () => {
    await expect(requireNoEviction(redisAt(`redis://127.0.0.1:${await freePort()}`))).resolves.toBeUndefined();
  });
});
