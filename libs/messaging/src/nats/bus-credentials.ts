import { createUser, fromSeed } from '@nats-io/nkeys';
import { createSealingKeys, type SealingKeys } from '../sealing/sealed-box.js';
import { BUS_SERVICES, type BusNamespace, type BusService, busPermissions, type NatsPermissions } from './bus-permissions.js';

/** A NATS user's nkey: the seed (`SU…`) stays with the service, the public key (`U…`) goes in the server config. */
export interface NkeyPair {
  seed: string;
  publicKey: string;
}

/**
 * Everything a deployment's bus needs: one nkey per service, and the xkeys that seal webhook
 * secrets from contact-directory to the webhook dispatcher (see docs/architecture.md).
 */
export interface BusCredentials {
  services: Record<BusService, NkeyPair>;
  sealing: { directory: SealingKeys; dispatcher: SealingKeys };
}

export function createNkeyPair(): NkeyPair {
  const pair = createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

/** The public key of a user seed, or undefined when it is not one (never echoes the seed). */
export function nkeyPublicKey(seed: string): string | undefined {
  try {
    return fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  } catch {
    return undefined;
  }
}

export function generateBusCredentials(): BusCredentials {
  const services = Object.fromEntries(BUS_SERVICES.map((service) => [service, createNkeyPair()])) as Record<BusService, NkeyPair>;
  return { services, sealing: { directory: createSealingKeys(), dispatcher: createSealingKeys() } };
}

/** The settings one service process gets: its own seed (and its own sealing key), nobody else's. */
export function busServiceEnv(service: string, credentials: BusCredentials): Record<string, string> {
  const own = credentials.services[service as BusService];
  if (!own) return {};
  const env: Record<string, string> = { NATS_NKEY_SEED: own.seed };
  const { directory, dispatcher } = credentials.sealing;
  if (service === 'contact-directory') Object.assign(env, { DIRECTORY_XKEY_SEED: directory.seed, DISPATCHER_XKEY: dispatcher.publicKey });
  if (service === 'webhook-dispatcher') Object.assign(env, { DISPATCHER_XKEY_SEED: dispatcher.seed, DIRECTORY_XKEY: directory.publicKey });
  return env;
}

export interface NatsUser {
  nkey: string;
  /** Absent: may do anything (only for an operator's or a test's own tools). */
  permissions?: NatsPermissions;
}

export interface NatsServerConfigOptions {
  /** `host:port` the server listens on. */
  listen: string;
  /** JetStream's store directory. */
  storeDir: string;
  namespace: BusNamespace;
  /** Public keys of the services. */
  services: Record<BusService, string>;
  /** Further users, e.g. an operator's unrestricted key or a test suite's observer. */
  extraUsers?: NatsUser[];
  /** HTTP monitoring port (`/connz`, `/varz`), none when absent. */
  monitorPort?: number;
  /** The server's name, unique in its cluster (JetStream in a cluster requires one). */
  serverName?: string;
  /** Makes the server one node of a NATS cluster; a single server when absent. */
  cluster?: NatsClusterOptions;
  /** Clients must connect over TLS, to this certificate and key (PEM files). */
  tls?: { certFile: string; keyFile: string };
}

/** One node's `cluster` block: every node of a cluster gets the same name, routes and route credentials. */
export interface NatsClusterOptions {
  /** The cluster's name, the same on every node. */
  name: string;
  /** `host:port` this node accepts route connections from the other nodes on. */
  listen: string;
  /** `host:port` of the other nodes' route listeners (listing this node's own too is harmless). */
  routes: string[];
  /**
   * The credentials route connections present and this node requires of them: the same on every
   * node, and no client's, so no client can pose as a node (client users cannot open routes anyway).
   */
  routeUser: string;
  routePassword: string;
  /**
   * Routes over TLS only, both ways: each node presents this certificate (valid for the addresses in
   * `routes`, and for client authentication) and requires one the CA signed of the other.
   */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

/**
 * A nats-server configuration (JSON, which nats-server reads as its config syntax): JetStream on,
 * every service a user with exactly the permissions of its role (bus-permissions.ts), and no
 * anonymous access.
 */
export function natsServerConfig(options: NatsServerConfigOptions): string {
  const users: NatsUser[] = [
    ...BUS_SERVICES.map((service) => ({ nkey: options.services[service], permissions: busPermissions(service, options.namespace) })),
    ...(options.extraUsers ?? []),
  ];
  const config = {
    ...(options.serverName ? { server_name: options.serverName } : {}),
    listen: options.listen,
    ...(options.monitorPort ? { http_port: options.monitorPort } : {}),
    // sync_interval is left at the server's default (fsync every 2 minutes): with replicas, a message is
    // acknowledged only once a majority of the nodes hold it (docs/operator-guide.md, on a NATS cluster).
    jetstream: { store_dir: options.storeDir },
    authorization: { users },
    // The default half second for a handshake is too short for a loaded host.
    ...(options.tls ? { tls: { cert_file: options.tls.certFile, key_file: options.tls.keyFile, timeout: 5 } } : {}),
    ...(options.cluster ? { cluster: clusterBlock(options.cluster) } : {}),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function clusterBlock(cluster: NatsClusterOptions) {
  const credentials = `${encodeURIComponent(cluster.routeUser)}:${encodeURIComponent(cluster.routePassword)}`;
  return {
    name: cluster.name,
    listen: cluster.listen,
    authorization: { user: cluster.routeUser, password: cluster.routePassword },
    routes: cluster.routes.map((route) => `nats-route://${credentials}@${route}`),
    ...(cluster.tls ? { tls: { cert_file: cluster.tls.certFile, key_file: cluster.tls.keyFile, ca_file: cluster.tls.caFile, timeout: 5 } } : {}),
  };
}
