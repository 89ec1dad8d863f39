import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import {
  type BusCredentials,
  type BusNamespace,
  type BusService,
  busInboxPrefix,
  busServiceEnv,
  createNkeyPair,
  generateBusCredentials,
  type NkeyPair,
  natsServerConfig,
} from '@availability/messaging';
import { freePort } from './free-port.js';

/**
 * A private, authenticated nats-server (the machine's binary, JetStream on) for one test suite:
 * the authorisation config is generated from the services' bus permissions for exactly this suite's
 * subject prefix and stream, as in a deployment, so what the tests exercise is what is deployed.
 */
export interface TestNatsServer {
  url: string;
  credentials: BusCredentials;
  /**
   * A client of the bus: `observer` (the default) is the suite's own unrestricted user (reads the
   * stream, stands in for a service); a service name connects with that service's credentials and
   * inbox; `anonymous` presents no credentials (and is refused).
   */
  connect(as?: BusService | 'observer' | 'anonymous'): Promise<NatsConnection>;
  /** The server's log lines about refused publishes and subscriptions, and refused logins, so far. */
  violations(): string[];
  stop(): Promise<void>;
}

/** Servers by URL, so ServiceProcess can hand a service the credentials of the server it is pointed at. */
const running = new Map<string, TestNatsServer>();

/** The bus settings of `app` on the test server at `natsUrl` (none for a server this process did not start). */
export function testBusEnv(natsUrl: string | undefined, app: string): Record<string, string> {
  const server = natsUrl ? running.get(natsUrl) : undefined;
  return server ? busServiceEnv(app, server.credentials) : {};
}

const natsServerBinary = () => process.env.NATS_SERVER_BIN ?? 'nats-server';

export async function startTestNatsServer(namespace: BusNamespace): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-nats-'));
  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const credentials = generateBusCredentials();
  const observer: NkeyPair = createNkeyPair();
  const services = Object.fromEntries(Object.entries(credentials.services).map(([service, pair]) => [service, pair.publicKey])) as Record<BusService, string>;
  const configFile = join(dir, 'nats-server.conf');
  await writeFile(configFile, natsServerConfig({ listen: `127.0.0.1:${port}`, storeDir: join(dir, 'jetstream'), namespace, services, extraUsers: [{ nkey: observer.publicKey }] }));

  const child = spawn(natsServerBinary(), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const violations: string[] = [];
  const remember = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-20_000);
    violations.push(...text.split('\n').filter((line) => /Violation|Authorization Error/i.test(line)));
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  const stopped = async () => {
    await stopChild(child);
    running.delete(url);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForReady(child, () => output);
  } catch (error) {
    await stopped();
    throw error;
  }
  killOnExit.add(child);

  const server: TestNatsServer = {
    url,
    credentials,
    connect(as = 'observer') {
      const seed = as === 'anonymous' ? undefined : as === 'observer' ? observer.seed : credentials.services[as].seed;
      return connect({
        servers: url,
        name: `test-${as}`,
        ...(seed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)) } : {}),
        ...(as !== 'anonymous' && as !== 'observer' ? { inboxPrefix: busInboxPrefix(as, namespace.subjectPrefix) } : {}),
      });
    },
    violations: () => [...violations],
    async stop() {
      killOnExit.delete(child);
      await stopped();
    },
  };
  running.set(url, server);
  return server;
}

async function waitForReady(child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  const spawnError = once(child, 'error').then(([error]) => error as Error);
  while (Date.now() < deadline) {
    if (/Server is ready/.test(output())) return;
    const failed = await Promise.race([spawnError, sleep(20).then(() => undefined)]);
    if (failed) throw new Error(`cannot run ${natsServerBinary()} (install nats-server, or set NATS_SERVER_BIN): ${failed.message}`);
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}:\n${output()}`);
  }
  throw new Error(`nats-server did not start in time:\n${output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A suite that dies without stopping its server takes the server with it. */
const killOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of killOnExit) child.kill('SIGKILL');
});
