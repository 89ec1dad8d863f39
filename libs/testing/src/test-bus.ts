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
): Promise<NatsConnection> {
  const seed = as === 'anonymous' ? undefined : as === 'observer' ? users.observer.seed : users.credentials.services[as].seed;
  return connect({
    servers,
    name: `test-${as}`,
    ...(seed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)) } : {}),
    ...(as !== 'anonymous' && as !== 'observer' ? { inboxPrefix: busInboxPrefix(as, namespace.subjectPrefix) } : {}),
  });
}

/** Test buses by the NATS_URL services are given, so ServiceProcess can hand a service its credentials there. */
export const runningTestBuses = new Map<string, { credentials: BusCredentials }>();
