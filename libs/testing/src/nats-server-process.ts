import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** The machine's nats-server (`NATS_SERVER_BIN` to use another). */
export const natsServerBinary = (): string => process.env.NATS_SERVER_BIN ?? 'nats-server';

/**
 * A nats-server run from a config file as a child process, for the test harness and the dev
 * launcher: started and waited for until it is ready, its log kept, and its refusals picked out.
 */
export class NatsServerProcess {
  private output = '';
  private readonly refused: string[] = [];

  private constructor(private readonly child: ChildProcess) {
    const remember = (chunk: Buffer) => {
      const text = chunk.toString();
      this.output = (this.output + text).slice(-20_000);
      this.refused.push(...text.split('\n').filter((line) => /Violation|authentication error|Authorization Error/i.test(line)));
    };
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
  }

  /**
   * `ownProcessGroup`: Ctrl-C in a terminal does not reach the server, so a launcher can stop its
   * services first (they drain their connections) and the server last.
   */
  static async start(configFile: string, { ownProcessGroup = false } = {}): Promise<NatsServerProcess> {
    const child = spawn(natsServerBinary(), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: ownProcessGroup });
    const server = new NatsServerProcess(child);
    const failedToSpawn = once(child, 'error').then(([error]) => error as Error);
    const deadline = Date.now() + 10_000;
    while (!/Server is ready/.test(server.output)) {
      const failed = await Promise.race([failedToSpawn, sleep(20).then(() => undefined)]);
      if (failed) throw new Error(`cannot run ${natsServerBinary()} (install nats-server 2.9 or later, or set NATS_SERVER_BIN): ${failed.message}`);
      if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}:\n${server.output}`);
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`nats-server did not start in time:\n${server.output}`);
      }
    }
    killOnExit.add(child);
    return server;
  }

  /** Log lines about refused publishes, subscriptions and logins, so far. */
  violations(): string[] {
    return [...this.refused];
  }

  logs(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
  }

  /** Sends `signal` (a crash with SIGKILL: nothing flushed, no goodbye to the cluster) and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    killOnExit.delete(this.child);
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) return;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    await exited;
  }
}

/** A process that dies without stopping its server takes the server with it. */
const killOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of killOnExit) child.kill('SIGKILL');
});
