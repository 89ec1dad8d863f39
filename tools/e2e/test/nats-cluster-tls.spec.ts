import { connect as connectTcp } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { offerBody, OffersClient, type SeededOrganisation } from '@availability/platform-client';
import {
  createTestCertificates,
  eventually,
  seedAgencyWithWebhooks,
  startTestPlatform,
  type TestCertificates,
  TestIntegrator,
  type TestNatsCluster,
  type TestPlatform,
} from '@availability/testing';

/**
 * The platform on NATS as production runs it: three servers, clients over TLS only, and the routes
 * between the servers over mutual TLS, all with a private CA made for this run that the services
 * trust through NATS_CA_FILE. Answers reach the integrator, and still do while one server is down.
 */
const SECRET = 'cluster-tls-integrator-secret-0123456789';
const APPS = ['contact-directory', 'offers-api', 'webhook-dispatcher'];

let certificates: TestCertificates;
let platform: TestPlatform;
let cluster: TestNatsCluster;
let integrator: TestIntegrator;
let agency: SeededOrganisation;
let sender: OffersClient;
const answered: Array<{ offerId: string; workerId: string }> = [];

beforeAll(async () => {
  certificates = await createTestCertificates();
  // The first call of every webhook is refused, so each answer's webhook arrives twice: a repeat must carry the same webhook-id.
  integrator = await TestIntegrator.start({ secret: SECRET, refuseFirstCallTo: '/offer/response' });
  platform = await startTestPlatform(APPS, { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_BACKOFF_BASE_MS: '200' }, { natsCluster: true, natsTls: certificates });
  cluster = platform.events.cluster as TestNatsCluster;
  agency = await seedAgencyWithWebhooks(platform, { name: 'Cluster TLS Staffing', workers: 3, integratorUrl: integrator.url, secret: SECRET });
  sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
}, 120_000);

afterAll(async () => {
  // stop() throws when the bus refused a service; the integrator must close anyway, or Jest never exits.
  try {
    await platform?.stop();
  } finally {
    integrator?.close();
    await certificates?.remove();
  }
});

/** What a plain TCP client receives (up to `limit` bytes) after sending `line`, and whether the server then closed the connection. */
function plainExchange(address: string, line: string, limit = 4096): Promise<{ received: string; closed: boolean }> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    let received = '';
    const socket = connectTcp(Number(port), host);
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: received.slice(0, limit), closed });
    };
    // Long enough for the server to speak first if it would (a plain NATS server sends INFO at once), and to answer.
    const timer = setTimeout(() => done(false), 5_000);
    socket.on('connect', () => setTimeout(() => socket.write(line), 500).unref());
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
  });
}

/** Opens a TLS connection to `address` and resolves with the first bytes the server sends, or rejects with the failure. */
function tlsFirstWords(address: string, options: ConnectionOptions): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host, port: Number(port), servername: 'localhost', ...options });
    const timer = setTimeout(() => finish(new Error('no answer within 5 s')), 5_000);
    const finish = (outcome: string | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (typeof outcome === 'string') resolve(outcome);
      else reject(outcome);
    };
    socket.on('data', (data) => finish(data.toString('latin1')));
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error('closed without a word')));
  });
}

/** A worker answers a new offer; its webhook reaches the integrator, refused once and then delivered again under the same webhook-id. */
async function answerAndExpectDelivered(workerIndex: number): Promise<void> {
  const created = await sender.createOffer(offerBody(agency.user.id, agency.workers.map((worker) => worker.id)));
  expect(created.status).toBe(201);
  const offerId = created.text;
  const worker = agency.workers[workerIndex];
  expect((await new OffersClient(platform.url('offers-api'), worker.token).answer(offerId, 'applied')).status).toBe(200);
  answered.push({ offerId, workerId: worker.id });
  const delivered = await eventually(
    () => integrator.callsTo('/offer/response').find((call) => call.body.includes(offerId) && call.body.includes(worker.id)),
    30_000,
    'the answer’s webhook',
  );
  await eventually(() => integrator.withId(delivered.webhookId).length >= 2, 30_000, 'the webhook’s retry');
  expect(integrator.withId(delivered.webhookId).every((call) => call.verified && call.body === delivered.body)).toBe(true);
}

describe('the platform on a three-node NATS cluster over TLS', () => {
  it('names every node tls://localhost and gives the services the CA', () => {
    expect(platform.env.NATS_URL.split(',')).toEqual(cluster.nodes.map((node) => node.url));
    expect(cluster.nodes.every((node) => /^tls:\/\/localhost:\d+$/.test(node.url))).toBe(true);
    expect(platform.env.NATS_CA_FILE).toBe(certificates.caFile);
  });

  it('takes clients over TLS only: a client that speaks in clear gets no further than the INFO that requires TLS', async () => {
    // The NATS client library starts TLS by itself whenever a server requires it, so the plain client is spoken by hand.
    for (const node of cluster.nodes) {
      const { received, closed } = await plainExchange(new URL(node.url.replace('tls:', 'http:')).host, 'CONNECT {"verbose":false}\r\nPING\r\n');
      expect(received).toMatch(/^INFO \{.*"tls_required":true/);
      expect(received).not.toContain('PONG');
      expect(closed).toBe(true);
    }
  });

  it('routes the nodes over mutual TLS only: nothing in clear, and no route without a certificate the CA signed for it', async () => {
    for (const node of cluster.nodes) {
      // A route port without TLS greets any connection with INFO in clear; this one says nothing and drops a clear CONNECT.
      expect(await plainExchange(node.route, 'CONNECT {}\r\nPING\r\n')).toEqual({ received: '', closed: true });
      // TLS without a client certificate, or with one for servers only, is refused during the handshake.
      await expect(tlsFirstWords(node.route, { ca: certificates.caCert })).rejects.toThrow(/certificate/);
      await expect(tlsFirstWords(node.route, { ca: certificates.caCert, ...certificates.localhost })).rejects.toThrow(/certificate/);
      // With the nodes' own certificate the route port speaks: its INFO comes only after the TLS handshake.
      expect(await tlsFirstWords(node.route, { ca: certificates.caCert, ...certificates.peer })).toMatch(/^INFO \{/);
    }
  });

  it('delivers answers to the integrator', async () => {
    await answerAndExpectDelivered(0);
  });

  it('still delivers answers with a node killed, its services connected again to another node; then takes the node back', async () => {
    const serviceConnections = async (node: number) => (await cluster.clientNames(node)).filter((name) => APPS.includes(name));
    // The node leading the stream, unless no service is connected to it: the loss must also make a
    // service reconnect, checking another node's certificate.
    let victim = await cluster.streamLeader(platform.events.stream);
    if ((await serviceConnections(victim)).length === 0) {
      const counts = await Promise.all(cluster.nodes.map((_, node) => serviceConnections(node).then((names) => names.length)));
      victim = counts.indexOf(Math.max(...counts));
    }
    const moved = await serviceConnections(victim);
    expect(moved.length).toBeGreaterThan(0);
    await cluster.kill(victim, 'SIGKILL');
    const survivors = cluster.nodes.map((_, node) => node).filter((node) => node !== victim);
    await eventually(
      async () => {
        const connected = (await Promise.all(survivors.map(serviceConnections))).flat();
        return moved.every((name) => connected.includes(name));
      },
      30_000,
      `${moved.join(', ')} connected to another node`,
    );
    for (const workerIndex of [1, 2]) await answerAndExpectDelivered(workerIndex);
    await cluster.restart(victim);
    await cluster.streamReplicasCurrent(platform.events.stream);
    await answerAndExpectDelivered(0);
  });

  it("received every answer's webhook, one body and one webhook-id per answer, and no service was refused", () => {
    const responses = integrator.callsTo('/offer/response');
    const key = (body: string) => {
      const parsed = JSON.parse(body) as { offerId: string; workerId: string };
      return `${parsed.offerId}/${parsed.workerId}`;
    };
    const idsByAnswer = new Map<string, Set<string>>();
    const bodiesById = new Map<string, Set<string>>();
    for (const call of responses) {
      idsByAnswer.set(key(call.body), (idsByAnswer.get(key(call.body)) ?? new Set()).add(call.webhookId));
      bodiesById.set(call.webhookId, (bodiesById.get(call.webhookId) ?? new Set()).add(call.body));
    }
    expect([...idsByAnswer.keys()].sort()).toEqual(answered.map((answer) => `${answer.offerId}/${answer.workerId}`).sort());
    expect([...idsByAnswer.values()].every((ids) => ids.size === 1)).toBe(true);
    expect([...bodiesById.values()].every((bodies) => bodies.size === 1)).toBe(true);
    expect(responses.every((call) => call.verified)).toBe(true);
    expect(cluster.violations().filter((line) => !line.includes('nats.js:test-'))).toEqual([]);
  });
});
