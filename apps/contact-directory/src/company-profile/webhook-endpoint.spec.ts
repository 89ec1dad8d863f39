import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboundClient, OutboundRequestError } from '@availability/outbound-http';
import { verifyRequest } from '@availability/webhook-signing';
import { describeFailure, parseBaseUrl, secretProblem, WebhookEndpointChecker } from './webhook-endpoint.js';

describe('parseBaseUrl', () => {
  it('normalises http(s) URLs without a trailing slash', () => {
    expect(parseBaseUrl('https://Hooks.Example.com/acme/')).toEqual({ baseUrl: 'https://hooks.example.com/acme' });
    expect(parseBaseUrl('http://example.com')).toEqual({ baseUrl: 'http://example.com' });
  });

  it.each([
    ['ftp://example.com', /http or https/],
    ['https://user:pw@example.com', /user name or password/],
    ['https://example.com/?a=1', /query/],
    ['https://example.com/#x', /fragment/],
    [`https://example.com/${'a'.repeat(2000)}`, /2000/],
    ['not a url', /absolute/],
    [42, /http/],
  ])('refuses %s', (raw, message) => {
    const result = parseBaseUrl(raw);
    expect('error' in result && result.error).toMatch(message);
  });
});

describe('secretProblem', () => {
  it('wants 16 to 256 visible ASCII characters', () => {
    expect(secretProblem('a-good-secret-0123')).toBeUndefined();
    expect(secretProblem('short')).toMatch(/16/);
    expect(secretProblem('has a space in it ok')).toMatch(/visible ASCII/);
    expect(secretProblem(undefined)).toMatch(/string/);
  });
});

describe('describeFailure', () => {
  it.each([
    ['tls', 'the certificate has expired', 'GET /test failed: TLS failed: the certificate has expired'],
    ['dns', 'the host name does not resolve', 'GET /test failed: the host name does not resolve (DNS)'],
    [
      'unreachable',
      'could not connect, or the connection ended without a valid HTTP answer',
      'GET /test failed: could not connect, or the connection ended without a valid HTTP answer (check the host name, the port, and http or https)',
    ],
    ['invalid-answer', 'the answer was cut off or its body was not valid HTTP', 'GET /test failed: the answer was cut off or its body was not valid HTTP'],
    [
      'forbidden-address',
      'an address of partner.example is a private network address',
      'GET /test failed: forbidden address: an address of partner.example is a private network address; the platform does not call private, loopback or link-local addresses',
    ],
  ] as const)('says what a %s failure means', (kind, message, expected) => {
    expect(describeFailure('/test', new OutboundRequestError(kind, message), 5000)).toEqual({ call: '/test', cause: kind, message: expected });
  });

  it('passes on nothing of a failure it does not know but that it could not connect', () => {
    expect(describeFailure('/test', new Error('connect ECONNREFUSED 10.1.2.3:6379'), 5000)).toEqual({
      call: '/test',
      cause: 'unreachable',
      message: 'GET /test failed: could not connect, or the connection ended without a valid HTTP answer (check the host name, the port, and http or https)',
    });
  });
});

describe('WebhookEndpointChecker', () => {
  const SECRET = 'checker-secret-0123456789';
  let server: Server;
  let base: string;
  let closing: TcpServer;
  let banner: TcpServer;
  let closedPort: number;
  let closingPort: number;
  let bannerPort: number;
  const client = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
  const checker = new WebhookEndpointChecker(client, 300);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const [, mode] = (req.url ?? '').split('/');
      const path = (req.url ?? '').slice(mode.length + 1);
      if (mode === 'ok' && path === '/test') return void res.writeHead(200).end();
      if (mode === 'ok' && path === '/test/auth') {
        const ok = verifyRequest({ request: req, body: '', secret: SECRET }).ok;
        return void res.writeHead(ok ? 200 : 401).end();
      }
      if (mode === 'lax') return void res.writeHead(200).end();
      if (mode === 'redirect') return void res.writeHead(301, { location: 'https://example.com/' }).end();
      if (mode === 'slow') return void setTimeout(() => res.writeHead(200).end(), 1000);
      res.writeHead(500).end();
    });
    server.listen(0, 'localhost');
    await once(server, 'listening');
    base = `http://localhost:${(server.address() as { port: number }).port}`;
    const closed = createTcpServer().listen(0, 'localhost');
    await once(closed, 'listening');
    closedPort = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    closing = createTcpServer((socket) => socket.destroy()).listen(0, 'localhost');
    banner = createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')).listen(0, 'localhost');
    await Promise.all([once(closing, 'listening'), once(banner, 'listening')]);
    closingPort = (closing.address() as { port: number }).port;
    bannerPort = (banner.address() as { port: number }).port;
  });

  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    server.close();
    closing.close();
    banner.close();
  });

  it('passes when /test answers 200 and /test/auth verifies the signature made with the secret', async () => {
    expect(await checker.check(`${base}/ok`, SECRET)).toBeUndefined();
  });

  it('probes /test/auth with a wrong secret and a stale timestamp: a verifying endpoint refuses both, a lax one accepts both', async () => {
    expect(await checker.probe(`${base}/ok`, SECRET)).toEqual({ wrongSecret: { status: 401 }, stale: { status: 401 } });
    expect(await checker.probe(`${base}/lax`, SECRET)).toEqual({ wrongSecret: { status: 200 }, stale: { status: 200 } });
    expect(await checker.probe(`${base}/slow`, SECRET)).toEqual({ wrongSecret: { failed: 'timeout' }, stale: { failed: 'timeout' } });
  });

  it('signs the stale probe correctly, only in the past: it verifies with a tolerance that reaches back far enough', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const recorder = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401).end();
    });
    recorder.listen(0, 'localhost');
    await once(recorder, 'listening');
    const at = new Date('2026-12-02T12:00:00Z');
    const clocked = new WebhookEndpointChecker(client, 300, undefined, () => at);
    await clocked.probe(`http://localhost:${(recorder.address() as { port: number }).port}`, SECRET);
    recorder.closeAllConnections();
    recorder.close();
    const [forged, stale] = seen;
    const request = (headers: (typeof seen)[number]) => ({ method: 'GET', url: '/test/auth', headers });
    expect(verifyRequest({ request: request(forged), body: '', secret: SECRET, now: at }).ok).toBe(false);
    expect(verifyRequest({ request: request(stale), body: '', secret: SECRET, now: at }).ok).toBe(false);
    expect(verifyRequest({ request: request(stale), body: '', secret: SECRET, now: new Date(at.getTime() - 15 * 60_000) }).ok).toBe(true);
  });

  it('cannot be used to tell a closed port from one that takes the connection and closes it, or answers in another protocol', async () => {
    const refused = await checker.check(`http://localhost:${closedPort}`, SECRET);
    expect(refused).toMatchObject({ call: '/test', cause: 'unreachable' });
    for (const port of [closingPort, bannerPort]) expect([port, await checker.check(`http://localhost:${port}`, SECRET)]).toEqual([port, refused]);
    expect(refused?.message).not.toMatch(/ECONN|socket|other side|refused/i);
  });

  it('names the failing call and the cause', async () => {
    expect(await checker.check(`${base}/ok`, 'another-secret-0123456789')).toMatchObject({ call: '/test/auth', cause: 'status', status: 401 });
    expect(await checker.check(`${base}/fail`, SECRET)).toMatchObject({ call: '/test', status: 500, message: expect.stringMatching(/GET \/test answered HTTP 500/) });
    expect(await checker.check(`${base}/redirect`, SECRET)).toMatchObject({ call: '/test', cause: 'redirect', message: expect.stringMatching(/redirects are not followed/) });
    expect(await checker.check(`${base}/slow`, SECRET)).toMatchObject({ call: '/test', cause: 'timeout', message: expect.stringMatching(/timeout/) });
    const strict = new WebhookEndpointChecker(new OutboundClient({ policy: { allowLoopback: false, allowPrivate: false } }), 300);
    expect(await strict.check(`${base}/ok`, SECRET)).toMatchObject({ call: '/test', cause: 'forbidden-address', message: expect.stringMatching(/loopback/) });
  });
});
