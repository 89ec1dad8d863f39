import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { RemoteKeySet, signRequest, SigningKeyRing, generateSigningKeyEntry } from './index.js';

/** The platform's side: a key set served over HTTP, swapped by the test, counting fetches. */
let ring = SigningKeyRing.parse(JSON.stringify([generateSigningKeyEntry('k1')]));
let fetches = 0;
let cacheControl = 'public, max-age=300';
let status = 200;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': cacheControl }).end(JSON.stringify(ring.keySet()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/webhook-keys.json`;
});

afterAll(() => {
  server.close();
});

function signedBy(signer: SigningKeyRing, body = '{"a":1}') {
  return { headers: signRequest({ secrets: [], method: 'POST', pathWithQuery: '/x', body, webhookId: 'evt', schemes: ['v1a'], signingKey: signer.active }), body };
}

describe('RemoteKeySet', () => {
  it('fetches once, then fetches again only for a key id it does not know (at most every minRefetchIntervalSeconds)', async () => {
    let now = 1_000_000;
    const remote = new RemoteKeySet({ url, minRefetchIntervalSeconds: 30, clock: () => now });
    fetches = 0;
    const first = signedBy(ring);
    expect(await remote.verify(first, first.body)).toEqual({ ok: true });
    expect(await remote.verify(first, first.body)).toEqual({ ok: true });
    expect(fetches).toBe(1);

    // Rotation: the new key signs, the old one is still published.
    const old = ring;
    ring = SigningKeyRing.parse(JSON.stringify([generateSigningKeyEntry('k2'), { kid: 'k1', x: old.keySet().keys[0].x }]));
    const rotated = signedBy(ring);
    now += 31_000;
    expect(await remote.verify(rotated, rotated.body)).toEqual({ ok: true });
    expect(await remote.verify(first, first.body)).toEqual({ ok: true });
    expect(fetches).toBe(2);

    // A made-up key id: one more fetch is allowed only after the interval.
    const stranger = signedBy(SigningKeyRing.parse(JSON.stringify([generateSigningKeyEntry('k9')])));
    expect(await remote.verify(stranger, stranger.body)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(await remote.verify(stranger, stranger.body)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(fetches).toBe(2);
    now += 31_000;
    expect(await remote.verify(stranger, stranger.body)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(fetches).toBe(3);
  });

  it('refreshes after max-age, and keeps the last good key set when a refresh fails', async () => {
    let now = 5_000_000;
    cacheControl = 'public, max-age=60';
    const remote = new RemoteKeySet({ url, clock: () => now });
    fetches = 0;
    const request = signedBy(ring);
    expect(await remote.verify(request, request.body)).toEqual({ ok: true });
    now += 61_000;
    status = 503;
    expect(await remote.verify(request, request.body)).toEqual({ ok: true });
    expect(fetches).toBe(2);
    status = 200;
    cacheControl = 'public, max-age=300';
  });

  it('throws when the first fetch fails (the receiver answers 5xx and the platform retries)', async () => {
    status = 500;
    try {
      const request = signedBy(ring);
      await expect(new RemoteKeySet({ url }).verify(request, request.body)).rejects.toThrow(/HTTP 500/);
    } finally {
      status = 200;
    }
    expect(() => new RemoteKeySet({ url: 'file:///etc/keys' })).toThrow(TypeError);
  });
});
