import { afterAll, describe, expect, it } from '@jest/globals';
import { startTestPlatform, startTestRedisServer, type TestPlatform, type TestRedisServer } from '@availability/testing';

/**
 * The dispatcher keeps its retries in Redis: it refuses to start on a Redis that may evict them, and
 * starts on one that refuses writes when full. Each Redis is a private server with its own policy.
 */
const servers: TestRedisServer[] = [];
let platform: TestPlatform | undefined;

afterAll(async () => {
  await platform?.stop();
  await Promise.all(servers.map((server) => server.stop()));
});

async function redisWith(maxmemoryPolicy: string): Promise<TestRedisServer> {
  const server = await startTestRedisServer({ maxmemoryPolicy });
  servers.push(server);
  return server;
}

describe('webhook-dispatcher and the eviction policy of its Redis', () => {
  it('refuses to start on a Redis that evicts keys, saying which and why, exit code 78', async () => {
    const evicting = await redisWith('allkeys-lru');
    const port = new URL(evicting.url).port;
    await expect(startTestPlatform(['webhook-dispatcher'], { REDIS_URL: evicting.url })).rejects.toThrow(
      new RegExp(
        `webhook-dispatcher exited with 78:[\\s\\S]*webhook-dispatcher cannot start: its configuration is invalid:\\n  - REDIS_URL: Redis at 127\\.0\\.0\\.1:${port} evicts keys \\(maxmemory-policy allkeys-lru\\): queued jobs and sessions would be lost; set maxmemory-policy noeviction`,
      ),
    );
  }, 120_000);

  it('starts on a Redis with maxmemory-policy noeviction', async () => {
    platform = await startTestPlatform(['webhook-dispatcher'], { REDIS_URL: (await redisWith('noeviction')).url });
    expect((await fetch(`${platform.url('webhook-dispatcher')}/health`)).status).toBe(200);
  }, 120_000);
});
