import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signRequest, verifyRequest, type VerifyResult } from './index.js';

// End-to-end over a real socket, the way the README tells integrators to receive: read the raw body,
// use `req.url` as the path with query, and verify before parsing anything.
const SECRET = 'roundtrip-secret';

function readRawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

describe('signing a real HTTP request and verifying it in a node:http receiver', () => {
  let server: Server;
  let origin: string;
  const results: VerifyResult[] = [];

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const body = await readRawBody(req);
      const result = verifyRequest({ secret: SECRET, request: req, body });
      results.push(result);
      res.writeHead(result.ok ? 204 : 401).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  async function send(pathWithQuery: string, body: string, signedPath = pathWithQuery): Promise<number> {
    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: signedPath, body, webhookId: 'evt_rt' });
    const response = await fetch(`${origin}${pathWithQuery}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    return response.status;
  }

  it('accepts a signed request sent to a base URL with a path prefix and query', async () => {
    const status = await send('/hooks/v1/offer/response?offerId=off_1&x=%20y', '{"answer":"accepted","note":"Zoë"}');

    expect(results.at(-1)).toEqual({ ok: true });
    expect(status).toBe(204);
  });

  it('rejects a request whose signed path differs from the one on the request line', async () => {
    const status = await send('/hooks/v1/offer/response', '{}', '/offer/response');

    expect(results.at(-1)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(status).toBe(401);
  });
});
