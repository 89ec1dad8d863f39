import { describe, expect, it } from '@jest/globals';
import { type OutboundClient, type OutboundRequest, OutboundRequestError } from '@availability/outbound-http';
import { SuggestionImages } from './suggestion-images.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A stand-in for the outbound client: answers by URL and counts the calls. */
function client(answer: (call: OutboundRequest) => Promise<unknown>) {
  const calls: OutboundRequest[] = [];
  const send = (call: OutboundRequest) => {
    calls.push(call);
    return answer(call);
  };
  return { calls, client: { send } as unknown as OutboundClient };
}
const image = (bytes = PNG, type = 'image/png', truncated = false) => Promise.resolve({ status: 200, headers: { 'content-type': type }, body: '', bytes, truncated, durationMs: 1 });
const options = { timeoutMs: 1_000, maxBytes: 100, ttlMs: 10_000, failureTtlMs: 1_000, maxCacheBytes: 400 };

describe('SuggestionImages', () => {
  it('asks for bytes within the bound, keeps the image until its time is up, and makes one call for concurrent views', async () => {
    let now = 0;
    const { calls, client: outbound } = client(() => image());
    const images = new SuggestionImages(outbound, options, () => now);
    const [a, b] = await Promise.all([images.get('https://img.example/a.png'), images.get('https://img.example/a.png')]);
    expect(a).toEqual({ ok: true, type: 'image/png', bytes: PNG });
    expect(b).toBe(a);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', responseType: 'bytes', maxResponseBytes: 100, timeoutMs: 1_000 });
    now = 9_999;
    await images.get('https://img.example/a.png');
    expect(calls).toHaveLength(1);
    now = 10_000;
    await images.get('https://img.example/a.png');
    expect(calls).toHaveLength(2);
  });

  it('remembers failures for their shorter time', async () => {
    let now = 0;
    const { calls, client: outbound } = client(() => Promise.reject(new OutboundRequestError('forbidden-address', '10.0.0.1 is a private address')));
    const images = new SuggestionImages(outbound, options, () => now);
    expect(await images.get('http://10.0.0.1/a.png')).toEqual({ ok: false, error: 'forbidden-address: 10.0.0.1 is a private address' });
    await images.get('http://10.0.0.1/a.png');
    expect(calls).toHaveLength(1);
    now = 1_000;
    await images.get('http://10.0.0.1/a.png');
    expect(calls).toHaveLength(2);
  });

  it.each([
    ['a cut-off body', () => image(PNG, 'image/png', true), /larger than 100 bytes/],
    ['an svg', () => image(Buffer.from('<svg/>'), 'image/svg+xml'), /svg\+xml is not an allowed/],
    ['a redirect', () => Promise.resolve({ status: 302, headers: {}, body: '', bytes: Buffer.alloc(0), truncated: false, durationMs: 1 }), /HTTP 302/],
    ['an unexpected error', () => Promise.reject(new Error('boom')), /^the call failed$/],
  ])('refuses %s', async (_what, answer, why) => {
    const result = await new SuggestionImages(client(answer).client, options).get('https://img.example/x');
    expect(!result.ok && result.error).toMatch(why);
  });

  it('holds at most maxCacheBytes, dropping the oldest images first', async () => {
    const { calls, client: outbound } = client(() => image());
    const images = new SuggestionImages(outbound, options, () => 0);
    // Each entry counts its bytes, its URL and a little more: about 100 bytes, so four fit in 400.
    for (const name of ['a', 'b', 'c', 'd', 'e']) await images.get(`https://img.example/${name}`);
    expect(calls).toHaveLength(5);
    await images.get('https://img.example/e');
    expect(calls).toHaveLength(5);
    await images.get('https://img.example/a');
    expect(calls).toHaveLength(6);
  });
});
