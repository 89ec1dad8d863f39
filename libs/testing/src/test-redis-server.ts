import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { RedisServerProcess } from './redis-server-process.js';

/**
 * A private redis-server for one test suite, keeping nothing on disk, so a test can take its data
 * away (`loseData`) without touching the Redis other suites share.
 */
export interface TestRedisServer {
  url: string;
  /**
   * Everything it held is gone, as after a restart without persistence: the process is killed
   * (`SIGKILL`) and a fresh, empty one starts on the same port. Clients see their connections drop
   * and reconnect to an empty server.
   */
  loseData(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestRedisServer(): Promise<TestRedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-redis-'));
  const port = await freePort();
  let server = await startRedis(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    async loseData() {
      await server.kill('SIGKILL');
      server = await startRedis(port, dir);
    },
    async stop() {
      await server.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function startRedis(port: number, dir: string): Promise<RedisServerProcess> {
  return RedisServerProcess.start(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
}
