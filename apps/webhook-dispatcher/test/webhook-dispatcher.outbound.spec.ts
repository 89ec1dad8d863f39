import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestCertificates, freePort, type TestCertificates } from '@availability/testing';
import { verifyRequest } from '@availability/webhook-signing';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, Receiver, startDispatcherTestBed } from './harness.js';

/**
 * How the dispatcher reaches integrators: under the production address policy (nothing on loopback
 * or private networks, even by host name), and over https with certificates checked against a CA
 * made for this run and given through OUTBOUND_CA_FILE.
 */
const SECRET = 'integrator-secret-1';

/** Quick retries, so a retried failure ends (dead) within the test. */
const QUICK_RETRIES = { WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_BACKOFF_CAP_MS: '200', WEBHOOK_TIMEOUT_MS: '2000' };

async function deliverTo(bed: DispatcherTestBed, baseUrl: string): Promise<string> {
  const org = randomUUID();
  bed.nats.targets.set(org, { baseUrl, secrets: [SECRET] });
  const event = offerResponseEvent(org);
  await bed.nats.publish(OFFER_RESPONSE, event);
  return event.eventId as string;
}

describe('under the production address policy', () => {
  let bed: DispatcherTestBed;

  beforeAll(async () => {
    // The test bed opens loopback for its other suites; here it stays shut, as in production.
    bed = await startDispatcherTestBed({ ...QUICK_RETRIES, WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' });
  }, 120_000);

  afterAll(async () => {
    await bed?.stop();
  });

  it('refuses an endpoint whose host name resolves to loopback: logged as forbidden-address, dead at once, nothing sent', async () => {
    const eventId = await deliverTo(bed, `${bed.receiver.url}/hooks`);
    const delivery = await bed.settled(eventId, 'dead');
    expect(delivery).toMatchObject({ attempts: 1, nextAttemptAt: null, lastStatusCode: null });
    expect(delivery.lastError).toBe('an address of localhost is a loopback address');
    expect(delivery.attemptLog).toEqual([expect.objectContaining({ attemptNo: 1, errorKind: 'forbidden-address', statusCode: null })]);
    // Not retried: a later look finds the same single attempt, and the integrator was never called.
    await sleep(500);
    expect((await bed.admin.delivery(eventId))?.attempts).toBe(1);
    expect(bed.receiver.requests).toHaveLength(0);
  });

  it.each([
    ['an IPv4-mapped loopback literal', (port: string) => `http://[::ffff:127.0.0.1]:${port}`, 'loopback'],
    ['a private address', (port: string) => `http://10.0.0.1:${port}`, 'private'],
    ['the cloud metadata address', () => 'http://169.254.169.254', 'link-local'],
  ])('refuses %s in the same way', async (_name, url, words) => {
    const eventId = await deliverTo(bed, url(new URL(bed.receiver.url).port));
    const delivery = await bed.settled(eventId, 'dead');
    expect(delivery).toMatchObject({ attempts: 1, nextAttemptAt: null });
    expect(delivery.attemptLog[0].errorKind).toBe('forbidden-address');
    expect(delivery.lastError).toContain(words);
    expect(bed.receiver.requests).toHaveLength(0);
  });
});

describe('https integrators', () => {
  let bed: DispatcherTestBed;
  let certificates: TestCertificates;
  const receivers: Receiver[] = [];

  async function httpsReceiver(which: 'localhost' | 'expired' | 'otherName'): Promise<Receiver> {
    const receiver = await Receiver.start({ tls: certificates[which] });
    receivers.push(receiver);
    return receiver;
  }

  beforeAll(async () => {
    certificates = await createTestCertificates();
    bed = await startDispatcherTestBed({ ...QUICK_RETRIES, OUTBOUND_CA_FILE: certificates.caFile });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await bed?.stop();
    await certificates?.remove();
  });

  it('delivers a signed webhook over TLS to https://localhost, trusting the configured CA', async () => {
    const receiver = await httpsReceiver('localhost');
    const eventId = await deliverTo(bed, `${receiver.url}/hooks`);
    const delivery = await bed.settled(eventId, 'succeeded');
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200, url: `${receiver.url}/hooks/offer/response` });
    const [request] = receiver.requests;
    expect(verifyRequest({ secret: SECRET, request, body: request.body })).toEqual({ ok: true });
  });

  it.each([
    ['an expired certificate', 'expired', 'the certificate has expired'],
    ['a certificate for another name', 'otherName', 'the certificate is not valid for localhost'],
  ] as const)('logs %s as a tls failure in plain words, retried like other connection failures', async (_name, which, reason) => {
    const receiver = await httpsReceiver(which);
    const eventId = await deliverTo(bed, receiver.url);
    const delivery = await bed.settled(eventId, 'dead');
    expect(delivery.attempts).toBe(2);
    expect(delivery.lastError).toBe(reason);
    expect(delivery.attemptLog.map((attempt) => attempt.errorKind)).toEqual(['tls', 'tls']);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('what the delivery log says of a call that got no answer', () => {
  let bed: DispatcherTestBed;
  const servers: Server[] = [];

  beforeAll(async () => {
    bed = await startDispatcherTestBed(QUICK_RETRIES);
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) server.close();
    await bed?.stop();
  });

  async function tcp(onConnect: (socket: Socket) => void): Promise<number> {
    const server = createServer(onConnect).listen(0, 'localhost');
    servers.push(server);
    await once(server, 'listening');
    return (server.address() as { port: number }).port;
  }

  it('the same for a refused connection as for one closed or answered in another protocol: no port scanning through it', async () => {
    const refused = await freePort();
    const closing = await tcp((socket) => socket.destroy());
    const banner = await tcp((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const logged = [];
    for (const port of [refused, closing, banner]) {
      const delivery = await bed.settled(await deliverTo(bed, `http://localhost:${port}/hooks`), 'dead');
      logged.push({ errors: delivery.attemptLog.map((attempt) => attempt.errorKind), lastError: delivery.lastError });
    }
    expect(logged).toEqual(Array(3).fill({ errors: ['unreachable', 'unreachable'], lastError: 'could not connect, or the connection ended without a valid HTTP answer' }));
  });
});
