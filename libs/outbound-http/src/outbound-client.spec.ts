import { once } from 'node:events';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runInTrace } from '@availability/service-core';
import { STRICT_POLICY } from './address-policy.js';
import { guardedLookup, OutboundClient, OutboundRequestError } from './outbound-client.js';

let server: Server;
/** Bytes that are not UTF-8 text: they survive only when kept as bytes. */
const BINARY = Buffer.from([0x89, 0x50, 0xff, 0xfe, 0x00, 0x80, 0xc3]);
let base: string;
// Responses to /held wait until the test releases them.
const held: Array<() => void> = [];
const releaseHeld = () => {
  for (const answer of held.splice(0)) answer();
};
const allowLoopback = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
const strict = new OutboundClient({ policy: STRICT_POLICY });

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
    if (req.url === '/held') return void held.push(() => res.end('released'));
    if (req.url === '/big') return void res.end('x'.repeat(100_000));
    if (req.url === '/binary') return void res.end(BINARY);
    if (req.url === '/trace') return void res.end(`${req.headers.traceparent} ${req.headers['user-agent']}`);
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => res.writeHead(201, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${body}`));
  });
  server.listen(0, 'localhost');
  await once(server, 'listening');
  base = `http://localhost:${(server.address() as { port: number }).port}`;
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

describe('guardedLookup', () => {
  const lookup = guardedLookup(async () => [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ], { allowLoopback: true, allowPrivate: false });
  const call = (options: object) =>
    new Promise<unknown[]>((resolve) => lookup('integrator.test', options as never, (...args: unknown[]) => resolve(args)));

  it('answers in the array shape when asked for all addresses (autoSelectFamily)', async () => {
    expect(await call({ all: true })).toEqual([null, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]]);
    expect(await call({ all: true, family: 6 })).toEqual([null, [{ address: '::1', family: 6 }]]);
  });

  it('answers in the single shape otherwise', async () => {
    expect(await call({})).toEqual([null, '127.0.0.1', 4]);
    expect(await call({ family: 6 })).toEqual([null, '::1', 6]);
  });
});

describe('OutboundClient', () => {
  it('sends the request and returns status, headers and body', async () => {
    const response = await allowLoopback.send({ url: `${base}/hook?x=1`, method: 'POST', body: 'hello', timeoutMs: 1000 });
    expect(response).toMatchObject({ status: 201, body: 'POST /hook?x=1 hello', truncated: false });
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.durationMs).toBeGreaterThan(0);
  });

  it('sends the traceparent of the work in hand with the call’s own headers', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const headers = { 'user-agent': 'spec' };
    const response = await runInTrace({ traceparent }, () => allowLoopback.send({ url: `${base}/trace`, method: 'GET', headers, timeoutMs: 1000 }));
    expect(response.body).toBe(`${traceparent} spec`);
    // The caller's headers are its own: a fan-out may share one object between calls of different traces.
    expect(headers).toEqual({ 'user-agent': 'spec' });
  });

  it('refuses loopback under the strict policy, by literal address and by name', async () => {
    const byName = await failure(strict.send({ url: `${base}/`, method: 'GET', timeoutMs: 1000 }));
    expect(byName.kind).toBe('forbidden-address');
    expect(byName.message).toBe('an address of localhost is a loopback address');
    const literal = base.replace('localhost', '127.0.0.1');
    expect((await failure(strict.send({ url: `${literal}/`, method: 'GET', timeoutMs: 1000 }))).message).toBe('127.0.0.1 is a loopback address');
  });

  it('reaches an integrator by host name', async () => {
    const response = await allowLoopback.send({ url: `${base}/hook`, method: 'POST', body: 'by name', timeoutMs: 1000 });
    expect(response).toMatchObject({ status: 201, body: 'POST /hook by name' });
  });

  it('does not follow redirects', async () => {
    const response = await allowLoopback.send({ url: `${base}/redirect`, method: 'GET', timeoutMs: 1000 });
    expect(response.status).toBe(302);
  });

  it('times out, and reports connections that cannot be made and bad URLs', async () => {
    expect((await failure(allowLoopback.send({ url: `${base}/slow`, method: 'GET', timeoutMs: 200 }))).kind).toBe('timeout');
    const closed = createServer();
    closed.listen(0, 'localhost');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    expect((await failure(allowLoopback.send({ url: `http://localhost:${port}/`, method: 'GET', timeoutMs: 1000 }))).kind).toBe('unreachable');
    expect((await failure(allowLoopback.send({ url: 'ftp://example.com/', method: 'GET', timeoutMs: 1000 }))).kind).toBe('invalid-url');
    expect((await failure(allowLoopback.send({ url: 'http://user:pw@example.com/', method: 'GET', timeoutMs: 1000 }))).kind).toBe('invalid-url');
  });

  it('gives every call its own deadline, also while it waits for a connection', async () => {
    const oneConnection = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false }, connectionsPerOrigin: 1 });
    try {
      const started = performance.now();
      const settled: string[] = [];
      type Outcome = { response?: unknown; error?: OutboundRequestError; elapsed: number };
      const watch = (name: string, promise: Promise<unknown>): Promise<Outcome> =>
        promise.then(
          (response) => {
            settled.push(name);
            return { response, elapsed: performance.now() - started };
          },
          (error: unknown) => {
            settled.push(name);
            return { error: error as OutboundRequestError, elapsed: performance.now() - started };
          },
        );
      // The first call holds the only connection until the server is told to answer; the others queue
      // behind it. Judged by outcome and order, not by how late a busy machine fires a timer: a queued
      // call whose deadline only started with its connection would still be waiting here.
      const first = watch('first', oneConnection.send({ url: `${base}/held`, method: 'GET', timeoutMs: 60_000 }));
      const second = watch('second', oneConnection.send({ url: `${base}/held`, method: 'GET', timeoutMs: 300 }));
      const third = watch('third', oneConnection.send({ url: `${base}/held`, method: 'GET', timeoutMs: 900 }));
      const [secondOutcome, thirdOutcome] = await Promise.all([second, third]);
      expect(settled).toEqual(['second', 'third']);
      expect(secondOutcome.error?.kind).toBe('timeout');
      expect(thirdOutcome.error?.kind).toBe('timeout');
      expect(secondOutcome.elapsed).toBeGreaterThanOrEqual(295);
      expect(thirdOutcome.elapsed).toBeGreaterThanOrEqual(895);
      releaseHeld();
      expect((await first).response).toMatchObject({ status: 200, body: 'released' });
      // Calls that finish leave no deadline behind; the connection is usable again.
      for (let i = 0; i < 3; i += 1) {
        expect((await oneConnection.send({ url: `${base}/echo`, method: 'POST', body: String(i), timeoutMs: 1000 })).body).toBe(`POST /echo ${i}`);
      }
    } finally {
      releaseHeld();
      await oneConnection.close();
    }
  });

  describe('with names resolved by a given resolver', () => {
    const port = () => Number(new URL(base).port);
    const answers = (...addresses: string[]): LookupAddress[] => addresses.map((address) => ({ address, family: isIP(address) }));

    async function withResolver<T>(addresses: string[], use: (client: OutboundClient, lookups: string[]) => Promise<T>): Promise<T> {
      const lookups: string[] = [];
      const client = new OutboundClient({
        policy: { allowLoopback: true, allowPrivate: false },
        resolve: async (hostname) => {
          lookups.push(hostname);
          return answers(...addresses);
        },
      });
      try {
        return await use(client, lookups);
      } finally {
        await client.close();
      }
    }

    it('connects to a name with several addresses (IPv4 and IPv6), once per connection', async () => {
      // The server listens on one of the two (localhost's first address): the other is refused and the socket goes on.
      const opened: string[] = [];
      const onConnection = (socket: Socket) => opened.push(socket.remoteAddress ?? '');
      server.on('connection', onConnection);
      try {
        await withResolver(['::1', '127.0.0.1'], async (client, lookups) => {
          for (let i = 0; i < 5; i += 1) {
            expect((await client.send({ url: `http://integrator.test:${port()}/n`, method: 'GET', timeoutMs: 2000 })).status).toBe(201);
          }
          // Kept-alive connections are reused: the name is resolved when a connection opens, not per call.
          expect(lookups.length).toBe(opened.length);
          expect(lookups.length).toBeLessThan(5);
          expect(new Set(lookups)).toEqual(new Set(['integrator.test']));
        });
      } finally {
        server.off('connection', onConnection);
      }
    });

    it('connects to a name that resolves to IPv6 only', async () => {
      const v6 = createServer((_req, res) => res.end('over IPv6'));
      v6.listen(0, '::1');
      await once(v6, 'listening');
      try {
        await withResolver(['::1'], async (client) => {
          const url = `http://v6only.test:${(v6.address() as { port: number }).port}/`;
          expect((await client.send({ url, method: 'GET', timeoutMs: 2000 })).body).toBe('over IPv6');
        });
      } finally {
        v6.close();
      }
    });

    it.each([
      [['127.0.0.1', '10.0.0.1'], 'private'],
      [['93.184.216.34', '10.0.0.1'], 'private'],
      [['::1', '169.254.169.254'], 'link-local'],
      [['127.0.0.1', '::ffff:192.168.1.1'], 'private'],
    ])('refuses a name if any of its addresses %j is forbidden, before connecting', async (addresses, words) => {
      let connections = 0;
      const onConnection = () => (connections += 1);
      server.on('connection', onConnection);
      try {
        await withResolver(addresses, async (client) => {
          const error = await failure(client.send({ url: `http://mixed.test:${port()}/`, method: 'GET', timeoutMs: 2000 }));
          expect(error.kind).toBe('forbidden-address');
          expect(error.message).toContain(words);
        });
        expect(connections).toBe(0);
      } finally {
        server.off('connection', onConnection);
      }
    });

    it('reports a name that does not resolve as a dns failure', async () => {
      const client = new OutboundClient({ policy: STRICT_POLICY, resolve: () => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })) });
      try {
        expect((await failure(client.send({ url: 'http://nowhere.test/', method: 'GET', timeoutMs: 1000 }))).kind).toBe('dns');
      } finally {
        await client.close();
      }
    });
  });

  it('reads at most the bounded part of a large body', async () => {
    const response = await allowLoopback.send({ url: `${base}/big`, method: 'GET', timeoutMs: 1000, maxResponseBytes: 1000 });
    expect(response.truncated).toBe(true);
    expect(response.body).toHaveLength(1000);
  });

  it('keeps the body as bytes when asked, within the bound', async () => {
    const whole = await allowLoopback.send({ url: `${base}/binary`, method: 'GET', timeoutMs: 1000, responseType: 'bytes' });
    expect(whole.bytes?.equals(BINARY)).toBe(true);
    expect(whole.body).toBe('');
    expect(whole.truncated).toBe(false);
    const cut = await allowLoopback.send({ url: `${base}/big`, method: 'GET', timeoutMs: 1000, maxResponseBytes: 1000, responseType: 'bytes' });
    expect(cut.truncated).toBe(true);
    expect(cut.bytes).toHaveLength(1000);
    const text = await allowLoopback.send({ url: `${base}/binary`, method: 'GET', timeoutMs: 1000 });
    expect(text.bytes).toBeUndefined();
  });
});
