import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { type BusNamespace, natsServerConfig } from '@availability/messaging';
import { freePort } from './free-port.js';
import { NatsServerProcess } from './nats-server-process.js';
import { eventually } from './service-process.js';
import { connectToTestBus, createTestBusUsers, runningTestBuses } from './test-bus.js';
import { type TestCertificates, writeCertificateFiles } from './test-certificates.js';
import type { TestNatsServer } from './test-nats-server.js';

/**
 * A private three-node NATS cluster with JetStream for one test suite or benchmark: the same
 * generated authorisation on every node as on a single test server, `url` the comma-separated list
 * of the nodes (what NATS_URL takes), and a node can be crashed and brought back with its store.
 */
export interface TestNatsCluster extends TestNatsServer {
  /**
   * Each node's server name, client URL and route listener (`host:port`, what the other nodes dial),
   * by index (0, 1, 2).
   */
  nodes: ReadonlyArray<{ name: string; url: string; route: string }>;
  /** Ends a node's process (SIGKILL by default: a crash) and waits for it to exit. */
  kill(node: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped node again on its store, and waits until it is back in the cluster. */
  restart(node: number): Promise<void>;
  /** The index of the node leading the stream (stream info's `cluster.leader`), once it has one. */
  streamLeader(stream: string): Promise<number>;
  /** Waits until every replica of the stream is current (a restarted node has caught up). */
  streamReplicasCurrent(stream: string): Promise<void>;
  /** The names of the clients connected to a running node (a service's connection carries its name). */
  clientNames(node: number): Promise<string[]>;
}

const NODES = 3;
const FORM_TIMEOUT_MS = 30_000;

interface Node {
  name: string;
  url: string;
  route: string;
  monitorUrl: string;
  configFile: string;
  process?: NatsServerProcess;
}

/**
 * `tls`: as in production, every node takes clients over TLS only (the certificates' `localhost`
 * one; the nodes are then named `tls://localhost:<port>` and clients trust the certificates' CA), and
 * the routes between the nodes are TLS only, each node presenting the `peer` certificate and
 * requiring one the CA signed of the other (a route's dialling node is the TLS client, so a
 * certificate for servers only would be refused).
 */
export async function startTestNatsCluster(namespace: BusNamespace, { tls }: { tls?: TestCertificates } = {}): Promise<TestNatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-nats-cluster-'));
  const users = createTestBusUsers();
  const clusterName = `test-${randomBytes(4).toString('hex')}`;
  const clientTls = tls ? await writeCertificateFiles(dir, 'client-tls', tls.localhost) : undefined;
  const routeTls = tls ? { ...(await writeCertificateFiles(dir, 'route-tls', tls.peer)), caFile: tls.caFile } : undefined;
  const route = { routeUser: 'route', routePassword: randomBytes(16).toString('hex'), tls: routeTls };
  const ports = [];
  for (let i = 0; i < NODES; i++) ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });

  const nodes: Node[] = [];
  for (const [index, port] of ports.entries()) {
    const name = `n${index + 1}`;
    const nodeDir = join(dir, name);
    await mkdir(nodeDir);
    const configFile = join(nodeDir, 'nats-server.conf');
    await writeFile(
      configFile,
      natsServerConfig({
        serverName: name,
        listen: `127.0.0.1:${port.client}`,
        monitorPort: port.monitor,
        storeDir: join(nodeDir, 'jetstream'),
        namespace,
        services: users.services,
        extraUsers: [{ nkey: users.observer.publicKey }],
        tls: clientTls,
        cluster: {
          name: clusterName,
          listen: `127.0.0.1:${port.route}`,
          routes: ports.filter((other) => other !== port).map((other) => `127.0.0.1:${other.route}`),
          ...route,
        },
      }),
    );
    nodes.push({
      name,
      url: tls ? `tls://localhost:${port.client}` : `nats://127.0.0.1:${port.client}`,
      route: `127.0.0.1:${port.route}`,
      monitorUrl: `http://127.0.0.1:${port.monitor}`,
      configFile,
    });
  }

  const url = nodes.map((node) => node.url).join(',');
  // Refusals logged by earlier runs of a node that was killed or restarted.
  const pastViolations: string[] = [];
  let observer: { nc: NatsConnection; jsm: JetStreamManager } | undefined;
  const jsm = async () => {
    if (!observer) {
      const nc = await connectToTestBus(url.split(','), users, namespace, 'observer', tls?.caCert);
      observer = { nc, jsm: await jetstreamManager(nc) };
    }
    return observer.jsm;
  };
  const nodeAt = (index: number): Node => {
    const node = nodes[index];
    if (!node) throw new Error(`the cluster has nodes 0 to ${NODES - 1}, not ${index}`);
    return node;
  };
  const stopNode = async (node: Node, signal: NodeJS.Signals) => {
    const running = node.process;
    node.process = undefined;
    if (!running) return;
    await running.kill(signal);
    pastViolations.push(...running.violations());
  };

  const cluster: TestNatsCluster = {
    url,
    credentials: users.credentials,
    nodes: nodes.map(({ name, url: nodeUrl, route: routeAddress }) => ({ name, url: nodeUrl, route: routeAddress })),
    connect: (as = 'observer') => connectToTestBus(url.split(','), users, namespace, as, tls?.caCert),
    violations: () => [...pastViolations, ...nodes.flatMap((node) => node.process?.violations() ?? [])],
    async kill(index, signal = 'SIGKILL') {
      await stopNode(nodeAt(index), signal);
    },
    async restart(index) {
      const node = nodeAt(index);
      if (node.process) throw new Error(`node ${node.name} is running; kill it first`);
      node.process = await NatsServerProcess.start(node.configFile);
      await waitUntilFormed(nodes.filter((other) => other.process));
    },
    async streamLeader(stream) {
      const manager = await jsm();
      const leader = await eventually(async () => (await manager.streams.info(stream)).cluster?.leader, FORM_TIMEOUT_MS, `a leader of stream ${stream}`);
      const index = nodes.findIndex((node) => node.name === leader);
      if (index < 0) throw new Error(`stream ${stream} is led by ${leader}, not a node of this cluster`);
      return index;
    },
    async streamReplicasCurrent(stream) {
      const manager = await jsm();
      await eventually(
        async () => {
          const info = (await manager.streams.info(stream)).cluster;
          const replicas = info?.replicas ?? [];
          return Boolean(info?.leader) && replicas.length === NODES - 1 && replicas.every((peer) => peer.current && !peer.offline);
        },
        FORM_TIMEOUT_MS,
        `every replica of stream ${stream} to be current`,
      );
    },
    async clientNames(index) {
      const connz = (await (await fetch(`${nodeAt(index).monitorUrl}/connz?limit=1024`)).json()) as { connections?: Array<{ name?: string }> };
      return (connz.connections ?? []).map((connection) => connection.name ?? '');
    },
    async stop() {
      await observer?.nc.close().catch(() => undefined);
      await Promise.all(nodes.map((node) => stopNode(node, 'SIGTERM')));
      runningTestBuses.delete(url);
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    for (const node of nodes) node.process = await NatsServerProcess.start(node.configFile);
    await waitUntilFormed(nodes);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  runningTestBuses.set(url, cluster);
  return cluster;
}

/**
 * Until each running node has a route to every other running node and they all name the same
 * JetStream meta leader: before that, stream and consumer requests fail with "JetStream system
 * temporarily unavailable". Read from each node's monitoring port.
 */
async function waitUntilFormed(running: Node[]): Promise<void> {
  await eventually(async () => {
    const leaders = new Set<string>();
    for (const node of running) {
      const routes = (await (await fetch(`${node.monitorUrl}/routez`)).json()) as { num_routes?: number };
      const jsz = (await (await fetch(`${node.monitorUrl}/jsz`)).json()) as { meta_cluster?: { leader?: string } };
      // A restarted node can briefly hold a duplicate route; at least one to each other node is what counts.
      if ((routes.num_routes ?? 0) < running.length - 1 || !jsz.meta_cluster?.leader) return false;
      leaders.add(jsz.meta_cluster.leader);
    }
    return leaders.size === 1;
  }, FORM_TIMEOUT_MS, 'the NATS cluster to form (routes and a JetStream meta leader)');
}
