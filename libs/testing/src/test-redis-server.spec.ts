import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startTestRedisServer, type TestRedisServer } from './test-redis-server.js';

let server: TestRedisServer;

beforeAll(async () => {
  server = await startTestRedisServer();
});

afterAll(async () => {
  await server?.stop();
});

describe('a private redis-server', () => {
  it('loses all its data on loseData, and a client reconnects to the empty server on the same URL', async () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: null });
    try {
      await client.set('kept?', 'yes');
      expect(await client.get('kept?')).toBe('yes');
      await server.loseData();
      expect(await client.get('kept?')).toBeNull();
      expect(await client.dbsize()).toBe(0);
    } finally {
      client.disconnect();
    }
  });
});
