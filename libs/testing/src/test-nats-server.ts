import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { NatsServerProcess } from './nats-server-process.js';

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

export async function startTestNatsServer(namespace: BusNamespace): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-nats-'));
  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const credentials = generateBusCredentials();
  const observer: NkeyPair = createNkeyPair();
  const services = Object.fromEntries(Object.entries(credentials.services).map(([service, pair]) => [service, pair.publicKey])) as Record<BusService, string>;
  const configFile = join(dir, 'nats-server.conf');
  await writeFile(configFile, natsServerConfig({ listen: `127.0.0.1:${port}`, storeDir: join(dir, 'jetstream'), namespace, services, extraUsers: [{ nkey: observer.publicKey }] }));

  const natsServer = await NatsServerProcess.start(configFile).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

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
    violations: () => natsServer.violations(),
    async stop() {
      await natsServer.stop();
      running.delete(url);
      await rm(dir, { recursive: true, force: true });
    },
  };
  running.set(url, server);
  return server;
}
