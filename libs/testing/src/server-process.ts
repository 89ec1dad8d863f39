import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServerProcessOptions {
  /** The program, as its errors name it (e.g. `nats-server`). */
  name: string;
  binary: string;
  args: string[];
  /** Said when the binary cannot be run at all. */
  installHint: string;
  /** The log line that says it serves. */
  readyWhen: RegExp;
  /** In its own process group: Ctrl-C in a terminal does not reach it. */
  detached?: boolean;
  /** Every piece of its log as it comes, for a caller that picks lines out. */
  onLog?: (text: string) => void;
  /** Runs as this user (a server that refuses to run as root, started by root). */
  user?: { uid: number; gid: number };
}

/**
 * A server the tests (or the dev launcher) run as a child process: started and waited for until its
 * log says it is ready, its log kept, and killed when this process exits without stopping it.
 */
export class ServerProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    onLog?: (text: string) => void,
  ) {
    const remember = (chunk: Buffer) => {
      const text = chunk.toString();
      this.output = (this.output + text).slice(-20_000);
      onLog?.(text);
    };
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
  }

  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    const child = spawn(options.binary, options.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false, ...options.user });
    const server = new ServerProcess(child, options.onLog);
    const failedToSpawn = once(child, 'error').then(([error]) => error as Error);
    // A guard against a server that hangs, not a measure: busy cores slow a start many times over.
    const deadline = Date.now() + 60_000;
    while (!options.readyWhen.test(server.output)) {
      const failed = await Promise.race([failedToSpawn, sleep(20).then(() => undefined)]);
      if (failed) throw new Error(`cannot run ${options.binary} (${options.installHint}): ${failed.message}`);
      if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode}:\n${server.output}`);
      if (Date.now() > deadline) {
        await server.kill('SIGKILL');
        throw new Error(`${options.name} did not start in time:\n${server.output}`);
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

/** A process that dies without stopping its servers takes them with it. */
const killOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of killOnExit) child.kill('SIGKILL');
});
