import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { testBusEnv } from './test-nats-server.js';

export { freePort } from './free-port.js';

export interface ServiceProcessOptions {
  /** App folder name under apps/, e.g. `offers-api`. Runs the built `dist/apps/<name>/src/main.js`. */
  app: string;
  port: number;
  env: Record<string, string>;
  /**
   * A guard against a start that hangs, not a measure of speed: a machine whose cores are busy with
   * other suites starts a service in many times its quiet time. Default 120 s.
   */
  startTimeoutMs?: number;
}

/**
 * One of our services running as its own process, exactly as deployed: tests drive it over HTTP and
 * NATS, and can stop, kill -9 or restart it.
 */
export class ServiceProcess {
  private child?: ChildProcess;
  private output: string[] = [];
  readonly url: string;

  constructor(private options: ServiceProcessOptions) {
    this.url = `http://localhost:${options.port}`;
  }

  static async start(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const service = new ServiceProcess(options);
    await service.start();
    return service;
  }

  async start(): Promise<void> {
    const entry = resolve(process.cwd(), 'dist/apps', this.options.app, 'src/main.js');
    this.output = [];
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        // Suites send far more than a client's minute of requests; the limiter still runs (and is tested on its own).
        RATE_LIMIT_PER_MINUTE: '100000000',
        PORT: String(this.options.port),
        // Its own NATS credentials (and sealing key) on the suite's test server, nobody else's.
        ...testBusEnv(this.options.env.NATS_URL, this.options.app),
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => this.remember(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.remember(chunk));
    const started = Date.now();
    const deadline = started + (this.options.startTimeoutMs ?? 120_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${this.options.app} exited with ${child.exitCode}:\n${this.logs()}`);
      try {
        const response = await fetch(`${this.url}/health/live`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    const cpu = cpuSecondsOf(child.pid);
    this.child.kill('SIGKILL');
    // Its CPU time tells a hang (a fraction of a second) from a start starved of CPU (seconds).
    throw new Error(`${this.options.app} did not start in ${Math.round((Date.now() - started) / 1000)} s (${cpu ?? '?'} s of CPU of its own):\n${this.logs()}`);
  }

  /** Graceful stop (SIGTERM), as an orchestrator would. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  /** Crash: SIGKILL, no shutdown hooks run. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /**
   * Holds the process (SIGSTOP): its connections stay open and nothing it was sent is answered until
   * `resume`, as a service stuck on a slow dependency looks to its callers.
   */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Graceful stop, then start again, with `env` over the settings it ran with (a redeploy with new settings). */
  async restart(env: Record<string, string> = {}): Promise<void> {
    await this.stop();
    this.options = { ...this.options, env: { ...this.options.env, ...env } };
    await this.start();
  }

  /** The process started (with SERVICE_PROCESSES > 1, the supervisor of the workers). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the last run ended: its exit code, or the signal that ended it; undefined while it runs. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    const child = this.child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return undefined;
    return { code: child.exitCode, signal: child.signalCode };
  }

  logs(): string {
    return this.output.join('');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  private remember(chunk: Buffer): void {
    this.output.push(chunk.toString());
    if (this.output.length > 2000) this.output.splice(0, 1000);
  }
}

/** User + system CPU seconds a process has used, from /proc (Linux); undefined where it cannot be read. */
function cpuSecondsOf(pid: number | undefined): string | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) / 100).toFixed(1);
  } catch {
    return undefined;
  }
}

/** What a check of `eventually` returns while the condition does not hold yet: any falsy value. */
export type NotYet = undefined | null | false | 0 | '';

/**
 * Polls `check` until it returns a truthy value, and returns that value; fails after the timeout,
 * naming `what` and the check's last error. Every falsy value means "not yet", so the usual
 * `found.length > 0 && found` and `delivery?.heldSince && delivery` forms wait for what they name
 * (a null `heldSince` is not a held delivery). A check that throws is retried.
 */
export async function eventually<T>(check: () => Promise<T | NotYet> | T | NotYet, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value as T;
    } catch (error) {
      last = error;
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
