import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createRequestSigner, signRequest, type SignRequestInput } from './index.js';

const NOW = new Date('2026-11-22T10:55:03.400Z');
const BASE: SignRequestInput = {
  secrets: ['old-secret'],
  method: 'POST',
  pathWithQuery: '/hooks/v1/offer/response',
  body: '{"a":1}',
  webhookId: 'evt_1:target_9',
  now: NOW,
};

const hmacHex = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');
const standardB64 = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('base64');

describe('signRequest', () => {
  it('returns exactly the five headers', () => {
    expect(Object.keys(signRequest(BASE)).sort()).toEqual(
      ['Authorization', 'Timestamp', 'webhook-id', 'webhook-signature', 'webhook-timestamp'].sort(),
    );
  });

  it('uses the same second for Timestamp and webhook-timestamp', () => {
    const headers = signRequest(BASE);

    expect(headers.Timestamp).toBe('2026-11-22T10:55:03Z');
    expect(headers['webhook-timestamp']).toBe(String(Date.parse(headers.Timestamp) / 1000));
  });

  it('defaults to the current time', () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = signRequest({ ...BASE, now: undefined });
    const after = Math.floor(Date.now() / 1000);

    const signedAt = Number(headers['webhook-timestamp']);
    expect(signedAt).toBeGreaterThanOrEqual(before);
    expect(signedAt).toBeLessThanOrEqual(after);
  });

  it('keeps webhook-id stable across retries of the same event and target', () => {
    const first = signRequest(BASE);
    const retry = signRequest({ ...BASE, now: new Date(NOW.getTime() + 60_000) });

    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
  });

  it('signs with both secrets during rotation, in order, with the documented separators', () => {
    const headers = signRequest({ ...BASE, secrets: ['old-secret', 'new-secret'] });
    const hmacMessage = `2026-11-22T10:55:03Z\nPOST\n/hooks/v1/offer/response\n{"a":1}`;
    const standardMessage = `evt_1:target_9.1795344903.{"a":1}`;

    expect(headers.Authorization).toBe(
      `hmac ${hmacHex('old-secret', hmacMessage)}, hmac ${hmacHex('new-secret', hmacMessage)}`,
    );
    expect(headers['webhook-signature']).toBe(
      `v1,${standardB64('old-secret', standardMessage)} v1,${standardB64('new-secret', standardMessage)}`,
    );
  });

  it('upper-cases the method before signing', () => {
    expect(signRequest({ ...BASE, method: 'post' }).Authorization).toBe(signRequest(BASE).Authorization);
  });

  it.each([
    ['no secrets', { secrets: [] }],
    ['three secrets', { secrets: ['a', 'b', 'c'] }],
    ['an empty secret', { secrets: [''] }],
    ['an empty secret during rotation', { secrets: ['old-secret', ''] }],
    ['a secret with a trailing newline', { secrets: ['old-secret\n'] }],
    ['a non-ASCII secret', { secrets: ['sécret'] }],
    ['a path without leading slash', { pathWithQuery: 'hooks/v1' }],
    ['a full URL instead of a path', { pathWithQuery: 'https://example.com/hooks' }],
    ['a path with a space', { pathWithQuery: '/hooks/a b' }],
    ['a method with a space', { method: 'PO ST' }],
    ['an empty webhook id', { webhookId: '' }],
    ['a webhook id with a newline', { webhookId: 'evt\n1' }],
    ['an over-long webhook id', { webhookId: 'x'.repeat(257) }],
    ['a parsed JSON body', { body: { a: 1 } as unknown as string }],
    ['an invalid date', { now: new Date('nope') }],
  ])('throws for %s', (_label, override) => {
    expect(() => signRequest({ ...BASE, ...override })).toThrow();
  });
});

describe('createRequestSigner', () => {
  it('signs exactly like signRequest, with one secret and during rotation', () => {
    for (const secrets of [['old-secret'], ['old-secret', 'new-secret']]) {
      const signer = createRequestSigner({ secrets, method: 'post', pathWithQuery: BASE.pathWithQuery });
      expect(signer.sign(BASE.body, BASE.webhookId, NOW)).toEqual(signRequest({ ...BASE, secrets }));
      expect(signer.sign('', 'other-id', NOW)).toEqual(signRequest({ ...BASE, secrets, body: '', webhookId: 'other-id' }));
    }
  });

  it('checks secrets, method and path once, when created, and the id and body on every call', () => {
    expect(() => createRequestSigner({ secrets: [], method: 'POST', pathWithQuery: '/x' })).toThrow(TypeError);
    expect(() => createRequestSigner({ secrets: ['s'], method: 'PO ST', pathWithQuery: '/x' })).toThrow(TypeError);
    expect(() => createRequestSigner({ secrets: ['s'], method: 'POST', pathWithQuery: 'x' })).toThrow(TypeError);
    const signer = createRequestSigner({ secrets: ['s'], method: 'POST', pathWithQuery: '/x' });
    expect(() => signer.sign('{}', '')).toThrow(TypeError);
    expect(() => signer.sign({ a: 1 } as unknown as string, 'id')).toThrow(TypeError);
  });
});
