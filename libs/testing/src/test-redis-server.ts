import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

/** The machine's redis-server (`REDIS_SERVER_BIN` to use another). */
const redisServerBinary = (): string => process.env.REDIS_SERVER_BIN ?? 'redis-server';

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
  let child = await startRedis(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    async loseData() {
      await kill(child, 'SIGKILL');
      child = await startRedis(port, dir);
    },
    async stop() {
      await kill(child, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(redisServerBinary(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const remember = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-10_000));
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  const failedToSpawn = once(child, 'error').then(([error]) => error as Error);
  const deadline = Date.now() + 10_000;
  while (!/Ready to accept connections/.test(output)) {
    const failed = await Promise.race([failedToSpawn, sleep(20).then(() => undefined)]);
    if (failed) throw new Error(`cannot run ${redisServerBinary()} (install redis-server, or set REDIS_SERVER_BIN): ${failed.message}`);
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await kill(child, 'SIGKILL');
      throw new Error(`redis-server did not start in time:\n${output}`);
    }
  }
  killOnExit.add(child);
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  killOnExit.delete(child);
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** A test process that dies without stopping its server takes the server with it. */
const killOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of killOnExit) child.kill('SIGKILL');
});
