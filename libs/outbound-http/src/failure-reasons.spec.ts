import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboundClient, OutboundRequestError } from './outbound-client.js';

/**
 * What a failed call says is shown to integrators (the company-profile check, the delivery log). It
 * must be something they can act on, and no more: told apart, "connection refused" and "the other
 * side closed" would make the platform a port scanner of any host the address policy allows, and
 * the system's own words (errno names, OpenSSL's source paths) are internal detail.
 */
const client = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
const servers: Server[] = [];
const sockets = new Set<Socket>();
/** Words that name the system's internals rather than the integrator's service: errno and library codes, OpenSSL's text. */
const INTERNAL_CODES = /\bE[A-Z]{3,}\b|HPE_|UND_ERR|ERR_|CERT_/;
const INTERNAL_WORDS = /socket|other side|openssl|ssl routines|\.c:\d|errno/i;

async function listen(server: Server): Promise<number> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return (server.address() as { port: number }).port;
}

/** A TCP service that does `onConnect` with each connection. */
function tcp(onConnect: (socket: Socket) => void): Promise<number> {
  return listen(createTcpServer(onConnect));
}

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

async function failure(url: string, timeoutMs = 3000): Promise<{ kind: string; message: string }> {
  const error = await client.send({ url, method: 'GET', timeoutMs }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundRequestError);
  const { kind, message } = error as OutboundRequestError;
  return { kind, message };
}

let ports: Record<string, number>;

beforeAll(async () => {
  ports = {
    refused: await closedPort(),
    closesAtOnce: await tcp((socket) => socket.destroy()),
    endsUnanswered: await tcp((socket) => socket.once('data', () => socket.end())),
    ssh: await tcp((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n')),
    redis: await tcp((socket) => socket.once('data', () => socket.write('-ERR unknown command \'GET\'\r\n'))),
    cutOff: await tcp((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nnot all of it'))),
    badChunk: await tcp((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))),
    badHeader: await tcp((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nBad Header\r\n\r\n'))),
    http: await listen(createHttpServer((_req, res) => res.end('plain http'))),
  };
});

afterAll(async () => {
  await client.close();
  for (const socket of sockets) socket.destroy();
  for (const server of servers) server.close();
});

describe('failure reasons an integrator can act on', () => {
  it('says the same for a refused connection as for any other that ends without an HTTP answer', async () => {
    const refused = await failure(`http://127.0.0.1:${ports.refused}/test`);
    expect(refused).toEqual({ kind: 'unreachable', message: 'could not connect, or the connection ended without a valid HTTP answer' });
    for (const port of [ports.closesAtOnce, ports.endsUnanswered, ports.ssh, ports.redis, ports.badHeader]) {
      expect([port, await failure(`http://127.0.0.1:${port}/test`)]).toEqual([port, refused]);
    }
  });

  it('says the same for https to a service that does not speak TLS, without the TLS library’s words', async () => {
    const refused = await failure(`https://127.0.0.1:${ports.refused}/test`);
    for (const port of [ports.ssh, ports.http, ports.closesAtOnce]) {
      expect([port, await failure(`https://127.0.0.1:${port}/test`)]).toEqual([port, refused]);
    }
    expect(refused.kind).toBe('unreachable');
  });

  it('calls an HTTP answer whose body is cut off or broken an invalid answer', async () => {
    const expected = { kind: 'invalid-answer', message: 'the answer was cut off or its body was not valid HTTP' };
    expect(await failure(`http://127.0.0.1:${ports.cutOff}/test`)).toEqual(expected);
    expect(await failure(`http://127.0.0.1:${ports.badChunk}/test`)).toEqual(expected);
  });

  it('names no internal detail in any reason', async () => {
    const urls = Object.values(ports).flatMap((port) => [`http://127.0.0.1:${port}/test`, `https://127.0.0.1:${port}/test`]);
    const reasons = await Promise.all(
      urls.map((url) =>
        client.send({ url, method: 'GET', timeoutMs: 3000 }).then(
          () => ({ kind: 'answered', message: '' }),
          (error: OutboundRequestError) => ({ kind: error.kind, message: error.message }),
        ),
      ),
    );
    for (const reason of reasons) {
      expect(reason.message).not.toMatch(INTERNAL_CODES);
      expect(reason.message).not.toMatch(INTERNAL_WORDS);
    }
    expect(new Set(reasons.map((reason) => reason.kind))).toEqual(new Set(['unreachable', 'invalid-answer', 'answered']));
  });

  it('names a forbidden address by its kind, not the address a name resolved to', async () => {
    const strict = new OutboundClient({ policy: { allowLoopback: false, allowPrivate: false } });
    try {
      const byName = await strict.send({ url: `http://localhost:${ports.http}/`, method: 'GET', timeoutMs: 1000 }).catch((error: OutboundRequestError) => error);
      expect(byName).toMatchObject({ kind: 'forbidden-address', message: 'an address of localhost is a loopback address' });
    } finally {
      await strict.close();
    }
  });
});
