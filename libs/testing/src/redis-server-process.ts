import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** The machine's redis-server (`REDIS_SERVER_BIN` to use another). */
export const redisServerBinary = (): string => process.env.REDIS_SERVER_BIN ?? 'redis-server';

/**
 * One redis-server process of a test (a data server or, with `--sentinel`, a Sentinel): started and
 * waited for until its log says it is ready, its log kept, and killed when the test process exits.
 */
export class RedisServerProcess {
  private output = '';

  private constructor(private readonly child: ChildProcess) {
    const remember = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
  }

  /** `readyWhen`: the log line that says it serves (data servers and Sentinels print different ones). */
  static async start(args: string[], { readyWhen = /Ready to accept connections/ } = {}): Promise<RedisServerProcess> {
    const child = spawn(redisServerBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new RedisServerProcess(child);
    const failedToSpawn = once(child, 'error').then(([error]) => error as Error);
    const deadline = Date.now() + 10_000;
    while (!readyWhen.test(server.output)) {
      const failed = await Promise.race([failedToSpawn, sleep(20).then(() => undefined)]);
      if (failed) throw new Error(`cannot run ${redisServerBinary()} (install redis-server, or set REDIS_SERVER_BIN): ${failed.message}`);
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${server.output}`);
      if (Date.now() > deadline) {
        await server.kill('SIGKILL');
        throw new Error(`redis-server did not start in time:\n${server.output}`);
      }
    }
    killOnExit.add(child);
    return server;
  }

  logs(): string {
    return this.output;
  }

  /** Sends `signal` without waiting for anything (SIGSTOP, SIGCONT). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Sends `signal` and waits for the process to exit (at once if it already has). */
  async kill(signal: NodeJS.Signals): Promise<void> {
    killOnExit.delete(this.child);
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) return;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    await exited;
  }
}

/** A test process that dies without stopping its servers takes them with it. */
const killOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of killOnExit) child.kill('SIGKILL');
});
