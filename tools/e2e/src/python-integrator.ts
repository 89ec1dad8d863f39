import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** tools/e2e/python-integrator: an integrator in Python 3.11+, standard library only (see its README). */
export const PYTHON_INTEGRATOR_DIR = resolve(process.cwd(), 'tools/e2e/python-integrator');

export interface PythonIntegratorOptions {
  port: number;
  secret: string;
  basePath: string;
  receivedToken: string;
  /** Registers on the company profile at start when both are given. */
  directoryUrl?: string;
  portalToken?: string;
  enableSuggestions?: boolean;
}

/** One call as the Python integrator recorded it (`GET <base>/received`). */
export interface RecordedCall {
  call: 'test' | 'test-auth' | 'offer-response' | 'contact-added' | 'contact-suggestions';
  method: string;
  path: string;
  status: number;
  verified: { hmac: boolean; standardWebhooks: boolean };
  reasons: { hmac?: string; standardWebhooks?: string };
  webhookId: string | null;
  body: string;
  workerId?: string;
  duplicate?: boolean;
}

export interface RecordedWebhook {
  webhookId: string;
  method: string;
  path: string;
  body: string;
  deliveries: number;
}

/** What it prints on stdout, one JSON object a line. */
export interface IntegratorEvent {
  event: string;
  [field: string]: unknown;
}

/** Fails with a plain message when the machine has no python3 of at least 3.11. */
export function assertPython(): void {
  const probe = spawnSync('python3', ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 3)'], { encoding: 'utf8' });
  if (probe.error) throw new Error(`python3 is not on PATH (${probe.error.message}); the Python integrator test needs Python 3.11 or later`);
  if (probe.status !== 0) throw new Error(`python3 is older than 3.11; the Python integrator test needs Python 3.11 or later`);
}

/** The Python integrator as a child process, listening on loopback and reached by the platform as `localhost`. */
export class PythonIntegrator {
  readonly events: IntegratorEvent[] = [];
  private readonly output: string[] = [];

  private constructor(
    private readonly child: ChildProcessByStdio<null, Readable, Readable>,
    readonly options: PythonIntegratorOptions,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.output.push(line);
      try {
        this.events.push(JSON.parse(line) as IntegratorEvent);
      } catch {
        // not one of its events
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    child.on('error', (error) => this.output.push(`could not run python3: ${error.message}`));
  }

  static async start(options: PythonIntegratorOptions): Promise<PythonIntegrator> {
    assertPython();
    const args = [
      resolve(PYTHON_INTEGRATOR_DIR, 'integrator.py'),
      '--port', String(options.port),
      '--base-path', options.basePath,
      '--received-token', options.receivedToken,
    ];
    if (options.directoryUrl) args.push('--directory-url', options.directoryUrl);
    if (options.enableSuggestions) args.push('--enable-suggestions');
    const child = spawn('python3', args, {
      // The secret and token through the environment, as a deployment would pass them.
      env: { ...process.env, INTEGRATOR_SECRET: options.secret, PORTAL_TOKEN: options.portalToken ?? '', PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const integrator = new PythonIntegrator(child, options);
    await integrator.waitForEvent(['listening'], 10_000);
    return integrator;
  }

  /** `http://localhost:<port><base path>`: where this test reaches it, by host name like the platform. */
  get baseUrl(): string {
    return `http://localhost:${this.options.port}${this.options.basePath}`;
  }

  /** The first of these events it printed; fails early, with its output, if the process ends. */
  async waitForEvent(names: string[], timeoutMs: number): Promise<IntegratorEvent> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.events.find((event) => names.includes(event.event));
      if (found) return found;
      if (this.child.exitCode !== null) break;
      await sleep(50);
    }
    const why = this.child.exitCode !== null ? `it exited with ${this.child.exitCode}` : `waited ${timeoutMs} ms`;
    throw new Error(`the Python integrator did not print ${names.join(' or ')} (${why}); its output:\n${this.logs()}`);
  }

  async received(): Promise<{ calls: RecordedCall[]; webhooks: RecordedWebhook[] }> {
    const response = await fetch(`${this.baseUrl}/received`, { headers: { authorization: `Bearer ${this.options.receivedToken}` } });
    if (response.status !== 200) throw new Error(`GET /received answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { calls: RecordedCall[]; webhooks: RecordedWebhook[] };
  }

  logs(): string {
    return this.output.join('\n');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
