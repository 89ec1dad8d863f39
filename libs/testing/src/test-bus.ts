import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import {
  type BusCredentials,
  type BusNamespace,
  type BusService,
  busInboxPrefix,
  createNkeyPair,
  generateBusCredentials,
  type NkeyPair,
} from '@availability/messaging';

/** Who may use a test bus: every service with its own nkey, and the suite's own unrestricted observer. */
export interface TestBusUsers {
  credentials: BusCredentials;
  observer: NkeyPair;
  /** The services' public keys, as the server config names them. */
  services: Record<BusService, string>;
}

export function createTestBusUsers(): TestBusUsers {
  const credentials = generateBusCredentials();
  const services = Object.fromEntries(Object.entries(credentials.services).map(([service, pair]) => [service, pair.publicKey])) as Record<BusService, string>;
  return { credentials, observer: createNkeyPair(), services };
}

/** A client of a test bus (one server or a cluster's list) as the observer, a service, or nobody. */
export function connectToTestBus(
  servers: string[],
  users: TestBusUsers,
  namespace: BusNamespace,
  as: BusService | 'observer' | 'anonymous',
  /** The CA of a server that requires TLS. */
  ca?: string,
): Promise<NatsConnection> {
  const seed = as === 'anonymous' ? undefined : as === 'observer' ? users.observer.seed : users.credentials.services[as].seed;
  const dial = () =>
    connect({
      servers,
      name: `test-${as}`,
      ...(seed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)) } : {}),
      ...(as !== 'anonymous' && as !== 'observer' ? { inboxPrefix: busInboxPrefix(as, namespace.subjectPrefix) } : {}),
      ...(ca ? { tls: { ca } } : {}),
      // As the services connect: no stack captured per request and publish. A benchmark's publisher
      // shares the cores with what it measures, and the traces cost it a third of its CPU.
      noAsyncTraces: true,
    });
  // In clean-clone runs on a loaded two-core host, a handshake with a running server now and then did
  // not complete within the client's 20 s (the cause is not known). A second attempt is what a
  // service's reconnecting client makes; a refusal (wrong or no credentials) is not retried.
  return dial().catch((error: Error) => (error.name === 'TimeoutError' ? dial() : Promise.reject(error)));
}

/** Test buses by the NATS_URL services are given, so ServiceProcess can hand a service its credentials there. */
export const runningTestBuses = new Map<string, { credentials: BusCredentials }>();
