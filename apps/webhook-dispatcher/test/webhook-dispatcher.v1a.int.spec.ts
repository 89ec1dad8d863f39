import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  generateSigningKeyEntry,
  RemoteKeySet,
  signRequest,
  SigningKeyRing,
  verifyRequest,
  verifyStandardWebhook,
  type VerifyResult,
  WELL_KNOWN_KEY_SET_PATH,
} from '@availability/webhook-signing';
import { freePort, ServiceProcess } from '@availability/testing';
import { type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, startDispatcherTestBed } from './harness.js';

/**
 * An integrator that verifies `v1a` only, from the platform's published key set: it knows no shared
 * secret. The dispatcher runs as a process (real PostgreSQL, Redis, NATS) and is restarted with a new
 * signing key to show a rotation from the integrator's side.
 */
const SECRET = 'integrator-secret-1';
const KEY_A = generateSigningKeyEntry('key-a');
const KEY_B = generateSigningKeyEntry('key-b');
const STRANGER = SigningKeyRing.parse(JSON.stringify([generateSigningKeyEntry('key-c')]));

interface Verified {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  verdict: VerifyResult;
}

/** The integrator stand-in: answers 204 to a request whose v1a signature verifies, 401 otherwise. */
class V1aIntegrator {
  readonly received: Verified[] = [];
  private readonly server: Server;

  constructor(readonly keys: RemoteKeySet) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        keys.verify(req, body).then(
          (verdict) => {
            this.received.push({ url: req.url ?? '', headers: req.headers, body, verdict });
            res.writeHead(verdict.ok ? 204 : 401).end();
          },
          () => res.writeHead(503).end(),
        );
      });
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  of(webhookId: string): Verified | undefined {
    return this.received.find((request) => request.headers['webhook-id'] === webhookId);
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

let bed: DispatcherTestBed;
let dispatcher: ServiceProcess;
let exampleIntegrator: ServiceProcess;
let integrator: V1aIntegrator;
let keySetUrl: string;

function organisation(signatureSchemes: string[]): string {
  const id = randomUUID();
  bed.nats.targets.set(id, { baseUrl: `${integrator.url}/hooks`, secrets: [SECRET], signatureSchemes });
  return id;
}

async function deliver(org: string): Promise<Verified> {
  const event = offerResponseEvent(org);
  await bed.nats.publish(OFFER_RESPONSE, event);
  await bed.settled(event.eventId as string, 'succeeded');
  return integrator.of(`${event.eventId}:${org}`) as Verified;
}

function signedBy(ring: SigningKeyRing, kid = ring.active.kid) {
  const body = '{"hello":"integrator"}';
  const headers = signRequest({ secrets: [], method: 'POST', pathWithQuery: '/hooks/x', body, webhookId: randomUUID(), schemes: ['v1a'], signingKey: ring.active });
  return { headers: { ...headers, 'webhook-key-id': kid }, body };
}

beforeAll(async () => {
  bed = await startDispatcherTestBed({ WEBHOOK_SIGNING_KEYS: JSON.stringify([KEY_A]), WEBHOOK_KEY_SET_MAX_AGE_SECONDS: '600' });
  dispatcher = bed.dispatcher;
  keySetUrl = `${dispatcher.url}${WELL_KNOWN_KEY_SET_PATH}`;
  // No wait between fetches for unknown key ids: the test shows the refetch, not its rate limit.
  integrator = new V1aIntegrator(new RemoteKeySet({ url: keySetUrl, minRefetchIntervalSeconds: 0 }));
  await integrator.start();
  exampleIntegrator = await ServiceProcess.start({
    app: 'example-integrator',
    port: await freePort(),
    env: { INTEGRATOR_SECRET: SECRET, INTEGRATOR_SIGNATURE_SCHEME: 'v1a', INTEGRATOR_KEY_SET_URL: keySetUrl },
  });
}, 120_000);

afterAll(async () => {
  await exampleIntegrator?.stop();
  integrator?.close();
  await dispatcher?.stop();
  await bed?.stop();
});

describe('v1a signatures and the published key set', () => {
  it('publishes the public keys without authentication, cacheable, with their key ids', async () => {
    const response = await fetch(keySetUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=600');
    const keySet = (await response.json()) as { keys: Array<Record<string, string>> };
    expect(keySet).toEqual(SigningKeyRing.parse(JSON.stringify([KEY_A])).keySet());
    expect(keySet.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: 'key-a', use: 'sig', alg: 'EdDSA' }]);
    expect(JSON.stringify(keySet)).not.toMatch(/PRIVATE|"d"/);
  });

  it('signs a v1a-only endpoint with the active key and nothing else; the integrator verifies it from the key set', async () => {
    const received = await deliver(organisation(['v1a']));
    expect(received.verdict).toEqual({ ok: true });
    expect(received.url).toBe('/hooks/offer/response');
    expect(received.headers['webhook-key-id']).toBe('key-a');
    expect(received.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(received.headers.authorization).toBeUndefined();
    expect(received.headers.timestamp).toBeUndefined();
  });

  it('adds v1a to hmac and v1 when the endpoint chose all three, each verifiable on its own', async () => {
    const received = await deliver(organisation(['hmac', 'v1', 'v1a']));
    expect(received.verdict).toEqual({ ok: true });
    const request = { method: 'POST', url: received.url, headers: received.headers };
    expect(verifyRequest({ secret: SECRET, request, body: received.body })).toEqual({ ok: true });
    expect(verifyStandardWebhook({ secret: SECRET, body: received.body, headers: received.headers })).toEqual({ ok: true });
  });

  it('the example integrator in v1a mode takes v1a deliveries and refuses hmac-only calls and unknown keys', async () => {
    const org = randomUUID();
    bed.nats.targets.set(org, { baseUrl: exampleIntegrator.url, secrets: [SECRET], signatureSchemes: ['v1a'] });
    const event = offerResponseEvent(org);
    await bed.nats.publish(OFFER_RESPONSE, event);
    await bed.settled(event.eventId as string, 'succeeded');
    const received = (await (await fetch(`${exampleIntegrator.url}/received`)).json()) as { items: Array<{ webhookId: string }> };
    expect(received.items.map((item) => item.webhookId)).toContain(`${event.eventId}:${org}`);

    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${exampleIntegrator.url}/offer/response`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    const body = '{"eventId":"x"}';
    const hmacOnly = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: '/offer/response', body, webhookId: randomUUID() });
    expect((await post(hmacOnly, body)).status).toBe(401);
    const stranger = signedBy(STRANGER);
    const refused = await post(stranger.headers, stranger.body);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/unknown_key/);
    // /test/auth stays hmac (spec 5).
    const auth = signRequest({ secrets: [SECRET], method: 'GET', pathWithQuery: '/test/auth', body: '', webhookId: randomUUID() });
    expect((await fetch(`${exampleIntegrator.url}/test/auth`, { headers: auth })).status).toBe(200);
  });

  it('rejects a request signed by a key that is not in the set, or by another key under a published id', async () => {
    const stranger = signedBy(STRANGER);
    expect(await integrator.keys.verify(stranger, stranger.body)).toEqual({ ok: false, reason: 'unknown_key' });
    const impostor = signedBy(STRANGER, 'key-a');
    expect(await integrator.keys.verify(impostor, impostor.body)).toEqual({ ok: false, reason: 'signature_mismatch' });
    const response = await fetch(`${integrator.url}/hooks/offer/response`, { method: 'POST', headers: impostor.headers, body: impostor.body });
    expect(response.status).toBe(401);
  });

  it('across a rotation (new key signs, old key still published) verifies deliveries signed by either key', async () => {
    const before = await deliver(organisation(['v1a']));
    expect(before.headers['webhook-key-id']).toBe('key-a');

    // Restart with key-b signing and key-a published from its public half only.
    const publishedA = SigningKeyRing.parse(JSON.stringify([KEY_A])).keySet().keys[0];
    await dispatcher.stop();
    dispatcher = await bed.startInstance({ WEBHOOK_SIGNING_KEYS: JSON.stringify([KEY_B, { kid: 'key-a', x: publishedA.x }]) }, Number(new URL(dispatcher.url).port));
    const keySet = (await (await fetch(keySetUrl)).json()) as { keys: Array<{ kid: string }> };
    expect(keySet.keys.map((key) => key.kid)).toEqual(['key-b', 'key-a']);

    // The integrator still holds the old key set (max-age 600): the unknown key-b makes it fetch again.
    const after = await deliver(organisation(['v1a']));
    expect(after.headers['webhook-key-id']).toBe('key-b');
    expect(after.verdict).toEqual({ ok: true });

    // A request signed with the old key (e.g. one in flight during the switch) still verifies.
    const old = signedBy(SigningKeyRing.parse(JSON.stringify([KEY_A])));
    expect(await integrator.keys.verify(old, old.body)).toEqual({ ok: true });
    const stranger = signedBy(STRANGER);
    expect(await integrator.keys.verify(stranger, stranger.body)).toEqual({ ok: false, reason: 'unknown_key' });
  }, 60_000);
});
