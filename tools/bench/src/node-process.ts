import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@availability/testing';

/**
 * A built script of this tool run as its own process, waited for on /health/live like our services
 * (ServiceProcess only runs `dist/apps/<app>`).
 */
export class NodeProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    const remember = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
  }

  /** `script` is relative to the repository root, e.g. `dist/tools/bench/src/baseline-server.js`. */
  static async start(script: string, env: Record<string, string>, startTimeoutMs = 60_000): Promise<NodeProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(process.cwd(), script)], {
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = new NodeProcess(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + startTimeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}:\n${started.output}`);
      if (await fetch(`${started.url}/health/live`).then((r) => r.ok, () => false)) return started;
      await sleep(100);
    }
    await started.stop('SIGKILL');
    throw new Error(`${script} did not start in time:\n${started.output}`);
  }

  /** Its process id, to bill its CPU. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    await exited;
  }

  logs(): string {
    return this.output;
  }
}
