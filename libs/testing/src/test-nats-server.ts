import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { type BusCredentials, type BusNamespace, type BusService, busServiceEnv, natsServerConfig } from '@availability/messaging';
import { freePort } from './free-port.js';
import { NatsServerProcess } from './nats-server-process.js';
import { connectToTestBus, createTestBusUsers, runningTestBuses } from './test-bus.js';
import { type TestCertificates, writeCertificateFiles } from './test-certificates.js';

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

/**
 * The bus settings of `app` on the test server or cluster at `natsUrl` (none for one this process did
 * not start).
 */
export function testBusEnv(natsUrl: string | undefined, app: string): Record<string, string> {
  const server = natsUrl ? runningTestBuses.get(natsUrl) : undefined;
  return server ? busServiceEnv(app, server.credentials) : {};
}

/**
 * `tls`: clients must connect over TLS (the certificates' `localhost` one); the server is then named
 * `tls://localhost:<port>`, and clients trust the certificates' CA.
 */
export async function startTestNatsServer(namespace: BusNamespace, { tls }: { tls?: TestCertificates } = {}): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-nats-'));
  const port = await freePort();
  const url = tls ? `tls://localhost:${port}` : `nats://127.0.0.1:${port}`;
  const users = createTestBusUsers();
  const { credentials, services } = users;
  const configFile = join(dir, 'nats-server.conf');
  const serverTls = tls ? await writeCertificateFiles(dir, 'server', tls.localhost) : undefined;
  await writeFile(
    configFile,
    natsServerConfig({ listen: `127.0.0.1:${port}`, storeDir: join(dir, 'jetstream'), namespace, services, extraUsers: [{ nkey: users.observer.publicKey }], tls: serverTls }),
  );

  const natsServer = await NatsServerProcess.start(configFile).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

  const server: TestNatsServer = {
    url,
    credentials,
    connect: (as = 'observer') => connectToTestBus([url], users, namespace, as, tls?.caCert),
    violations: () => natsServer.violations(),
    async stop() {
      await natsServer.stop();
      runningTestBuses.delete(url);
      await rm(dir, { recursive: true, force: true });
    },
  };
  runningTestBuses.set(url, server);
  return server;
}
