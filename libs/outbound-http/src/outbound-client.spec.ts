import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { forbiddenReason, STRICT_POLICY } from './address-policy.js';
import { OutboundClient, OutboundRequestError } from './outbound-client.js';

let server: Server;
let base: string;
const allowLoopback = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
const strict = new OutboundClient({ policy: STRICT_POLICY });

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
    if (req.url === '/big') return void res.end('x'.repeat(100_000));
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => res.writeHead(201, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${body}`));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await Promise.all([allowLoopback.close(), strict.close()]);
  server.close();
});

async function failure(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundRequestError);
    return error as OutboundRequestError;
  }
  throw new Error('expected the call to fail');
}

describe('forbiddenReason', () => {
  it.each([
    ['169.254.169.254', STRICT_POLICY, 'link-local'],
    ['127.0.0.1', STRICT_POLICY, 'loopback'],
    ['::1', STRICT_POLICY, 'loopback'],
    ['10.1.2.3', STRICT_POLICY, 'private'],
    ['172.20.0.1', STRICT_POLICY, 'private'],
    ['192.168.1.1', STRICT_POLICY, 'private'],
    ['::ffff:10.0.0.1', STRICT_POLICY, 'private'],
    ['fd00::1', STRICT_POLICY, 'private'],
    ['fe80::1', { allowLoopback: true, allowPrivate: true }, 'link-local'],
    ['0.0.0.0', { allowLoopback: true, allowPrivate: true }, 'reserved'],
  ])('refuses %s', (address, policy, words) => {
    expect(forbiddenReason(address, policy)).toContain(words);
  });

  it.each([['93.184.216.34'], ['2606:4700::1111']])('allows public %s', (address) => {
    expect(forbiddenReason(address, STRICT_POLICY)).toBeUndefined();
  });

  it('opens loopback and private ranges only when configured', () => {
    expect(forbiddenReason('127.0.0.1', { allowLoopback: true, allowPrivate: false })).toBeUndefined();
    expect(forbiddenReason('10.0.0.1', { allowLoopback: true, allowPrivate: false })).toContain('private');
    expect(forbiddenReason('10.0.0.1', { allowLoopback: false, allowPrivate: true })).toBeUndefined();
  });
});

describe('OutboundClient', () => {
  it('sends the request and returns status, headers and body', async () => {
    const response = await allowLoopback.send({ url: `${base}/hook?x=1`, method: 'POST', body: 'hello', timeoutMs: 1000 });
    expect(response).toMatchObject({ status: 201, body: 'POST /hook?x=1 hello', truncated: false });
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.durationMs).toBeGreaterThan(0);
  });

  it('refuses loopback under the strict policy, by literal address and by name', async () => {
    expect((await failure(strict.send({ url: `${base}/`, method: 'GET', timeoutMs: 1000 }))).kind).toBe('forbidden-address');
    const byName = base.replace('127.0.0.1', 'localhost');
    expect((await failure(strict.send({ url: `${byName}/`, method: 'GET', timeoutMs: 1000 }))).kind).toBe('forbidden-address');
  });

  it('does not follow redirects', async () => {
    const response = await allowLoopback.send({ url: `${base}/redirect`, method: 'GET', timeoutMs: 1000 });
    expect(response.status).toBe(302);
  });

  it('times out, and reports refused connections and bad URLs', async () => {
    expect((await failure(allowLoopback.send({ url: `${base}/slow`, method: 'GET', timeoutMs: 200 }))).kind).toBe('timeout');
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    expect((await failure(allowLoopback.send({ url: `http://127.0.0.1:${port}/`, method: 'GET', timeoutMs: 1000 }))).kind).toBe('refused');
    expect((await failure(allowLoopback.send({ url: 'ftp://example.com/', method: 'GET', timeoutMs: 1000 }))).kind).toBe('invalid-url');
    expect((await failure(allowLoopback.send({ url: 'http://user:pw@example.com/', method: 'GET', timeoutMs: 1000 }))).kind).toBe('invalid-url');
  });

  it('gives every call its own deadline, also while it waits for a connection', async () => {
    const oneConnection = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false }, connectionsPerOrigin: 1 });
    try {
      const started = performance.now();
      const elapsed = async (promise: Promise<unknown>) => {
        await promise.catch((error: unknown) => expect((error as OutboundRequestError).kind).toBe('timeout'));
        return performance.now() - started;
      };
      // The first call holds the only connection; the others queue behind it and time out on time.
      const calls = [300, 100, 200].map((timeoutMs) => elapsed(oneConnection.send({ url: `${base}/slow`, method: 'GET', timeoutMs })));
      const [first, second, third] = await Promise.all(calls);
      expect(second).toBeGreaterThanOrEqual(95);
      expect(second).toBeLessThan(250);
      expect(third).toBeGreaterThanOrEqual(195);
      expect(third).toBeLessThan(350);
      expect(first).toBeGreaterThanOrEqual(295);
      // Calls that finish leave no deadline behind; the connection is usable again.
      for (let i = 0; i < 3; i += 1) {
        expect((await oneConnection.send({ url: `${base}/echo`, method: 'POST', body: String(i), timeoutMs: 1000 })).body).toBe(`POST /echo ${i}`);
      }
    } finally {
      await oneConnection.close();
    }
  });

  it('reads at most the bounded part of a large body', async () => {
    const response = await allowLoopback.send({ url: `${base}/big`, method: 'GET', timeoutMs: 1000, maxResponseBytes: 1000 });
    expect(response.truncated).toBe(true);
    expect(response.body).toHaveLength(1000);
  });
});
