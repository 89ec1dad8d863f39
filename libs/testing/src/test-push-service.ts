import { createECDH, createPublicKey, type ECDH, randomBytes, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/** RFC 8188 decryption (aes128gcm, RFC 8291's keys), as a browser does it. */
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
};

/** What a browser's `PushSubscription.toJSON()` gives the page. */
export interface TestPushSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** One push the stand-in accepted, decrypted. */
export interface ReceivedWebPush {
  endpoint: string;
  /** The decrypted payload, as text (JSON.parse it for the platform's pushes). */
  payload: string;
  ttl: number;
  urgency?: string;
  topic?: string;
  /** The VAPID JWT's claims. */
  vapid: { aud: string; exp: number; sub: string };
  receivedAt: string;
}

/** A request the stand-in refused, and why (what a real push service would answer). */
export interface RefusedWebPush {
  endpoint: string;
  status: number;
  reason: string;
}

interface Subscriber {
  ecdh: ECDH;
  auth: string;
  /** Statuses to answer before accepting again (e.g. 503 twice), then `gone` if set. */
  failures: Array<{ status: number; retryAfter?: string }>;
  gone?: 404 | 410;
}

/** VAPID JWTs may live at most 24 hours (RFC 8292 2). */
const MAX_JWT_LIFETIME_S = 24 * 3600;
const MAX_BODY_BYTES = 4096 + 1024;

/**
 * A Web Push service on loopback, as browser vendors run them (RFC 8030): it hands out
 * subscriptions (a P-256 key pair and a 16-byte auth secret per subscription, like a browser), and
 * accepts `POST <endpoint>` only with a valid VAPID `Authorization: vapid t=<JWT>, k=<key>` (ES256
 * signature checked against k, audience this origin, expiry within 24 h, subject mailto: or https:,
 * and k the expected application server key when one is given), a `TTL` header and
 * `Content-Encoding: aes128gcm`. It decrypts each payload with the subscription's private keys and
 * records it. It can be told to answer 410 (or 404) for an endpoint, or fail it a few times.
 */
export class TestPushService {
  private readonly subscribers = new Map<string, Subscriber>();
  private readonly accepted: ReceivedWebPush[] = [];
  private readonly refusedRequests: RefusedWebPush[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly applicationServerKey: string | undefined,
  ) {}

  /** `applicationServerKey`: the VAPID public key pushes must be signed with (any valid key otherwise). */
  static async start(options: { applicationServerKey?: string } = {}): Promise<TestPushService> {
    const handler: { service?: TestPushService } = {};
    const server = createServer((request, response) => void handler.service?.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    handler.service = new TestPushService(server, `http://127.0.0.1:${port}`, options.applicationServerKey);
    return handler.service;
  }

  /** A new subscription, as `pushManager.subscribe()` would give the page. */
  subscribe(): TestPushSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16).toString('base64url');
    const endpoint = `${this.url}/push/${randomUUID()}`;
    this.subscribers.set(new URL(endpoint).pathname, { ecdh, auth, failures: [] });
    return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth } };
  }

  /** From now on, answer every push to this endpoint with 410 Gone (unsubscribed) or 404 (expired). */
  gone(endpoint: string, status: 404 | 410 = 410): void {
    this.subscriber(endpoint).gone = status;
  }

  /** Answer the next pushes to this endpoint with these statuses (e.g. 503), then accept again. */
  failNext(endpoint: string, ...failures: Array<{ status: number; retryAfter?: string }>): void {
    this.subscriber(endpoint).failures.push(...failures);
  }

  /** The decrypted pushes, oldest first; only those to one endpoint when given. */
  received(endpoint?: string): ReceivedWebPush[] {
    return this.accepted.filter((push) => endpoint === undefined || push.endpoint === endpoint);
  }

  refused(endpoint?: string): RefusedWebPush[] {
    return this.refusedRequests.filter((push) => endpoint === undefined || push.endpoint === endpoint);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private subscriber(endpoint: string): Subscriber {
    const subscriber = this.subscribers.get(new URL(endpoint).pathname);
    if (!subscriber) throw new Error(`${endpoint} is not a subscription of this push service`);
    return subscriber;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const endpoint = `${this.url}${path}`;
    const answer = (status: number, reason: string, headers: Record<string, string> = {}) => {
      if (status >= 300) this.refusedRequests.push({ endpoint, status, reason });
      response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(reason);
    };
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      return answer(413, (error as Error).message);
    }
    const subscriber = this.subscribers.get(path);
    if (request.method !== 'POST') return answer(405, 'only POST');
    if (!subscriber) return answer(404, 'no such subscription');
    if (subscriber.gone) return answer(subscriber.gone, 'push subscription has unsubscribed or expired');

    const vapid = this.checkVapid(request.headers.authorization);
    if (typeof vapid === 'string') return answer(vapid.startsWith('403') ? 403 : 401, vapid);
    const ttl = request.headers.ttl;
    if (typeof ttl !== 'string' || !/^\d+$/.test(ttl)) return answer(400, 'TTL header missing or not a number');
    if (request.headers['content-encoding'] !== 'aes128gcm') return answer(415, 'Content-Encoding must be aes128gcm');
    const failure = subscriber.failures.shift();
    if (failure) return answer(failure.status, 'configured failure', failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});

    let payload: string;
    try {
      payload = ece.decrypt(body, { version: 'aes128gcm', privateKey: subscriber.ecdh, authSecret: subscriber.auth }).toString('utf8');
    } catch (error) {
      return answer(400, `payload does not decrypt: ${(error as Error).message}`);
    }
    const urgency = header(request, 'urgency');
    const topic = header(request, 'topic');
    this.accepted.push({
      endpoint,
      payload,
      ttl: Number(ttl),
      ...(urgency ? { urgency } : {}),
      ...(topic ? { topic } : {}),
      vapid,
      receivedAt: new Date().toISOString(),
    });
    answer(201, '', { location: `${this.url}/messages/${randomUUID()}` });
  }

  /** The VAPID claims when the Authorization header is valid (RFC 8292), else why not ("401 …"/"403 …"). */
  private checkVapid(authorization: string | undefined): ReceivedWebPush['vapid'] | string {
    const match = /^vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
    if (!match) return '401 Authorization must be "vapid t=<JWT>, k=<key>"';
    const [, headerPart, claimsPart, signaturePart, key] = match;
    if (this.applicationServerKey && key !== this.applicationServerKey) return '403 k is not the key the subscription was made with';
    const point = Buffer.from(key, 'base64url');
    if (point.length !== 65 || point[0] !== 4) return '401 k is not an uncompressed P-256 key';
    let header: { typ?: string; alg?: string };
    let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
    try {
      header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return '401 the JWT is not JSON';
    }
    if (header.alg !== 'ES256') return '401 the JWT must be ES256';
    let valid = false;
    try {
      const publicKey = createPublicKey({
        key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
        format: 'jwk',
      });
      valid = verify('sha256', Buffer.from(`${headerPart}.${claimsPart}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signaturePart, 'base64url'));
    } catch {
      valid = false;
    }
    if (!valid) return '403 the JWT signature does not verify with k';
    const now = Math.floor(Date.now() / 1000);
    if (claims.aud !== this.url) return `403 the JWT audience must be ${this.url}`;
    if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + MAX_JWT_LIFETIME_S) return '403 the JWT has expired or lives longer than 24 hours';
    if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return '403 the JWT subject must be a mailto: or https: URL';
    return { aud: claims.aud, exp: claims.exp, sub: claims.sub };
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('payload larger than a push service accepts');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A VAPID key pair, base64url as `web-push generate-vapid-keys` prints it, and settings using it. */
export function generateTestVapidKeys(): { publicKey: string; privateKey: string; env: Record<string, string> } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const publicKey = ecdh.getPublicKey().toString('base64url');
  // 32 bytes always: the big number drops leading zero bytes.
  const privateKey = ecdh.getPrivateKey().toString('hex').padStart(64, '0');
  const privateKeyBase64url = Buffer.from(privateKey, 'hex').toString('base64url');
  return { publicKey, privateKey: privateKeyBase64url, env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKeyBase64url, VAPID_SUBJECT: 'mailto:push-tests@availability.example' } };
}
