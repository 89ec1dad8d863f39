import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  signRequest,
  verifyHmacRequest,
  verifyRequest,
  verifyStandardWebhook,
  type SignRequestInput,
  type VerifyHmacRequestInput,
} from './index.js';

const SECRET = 'current-secret';
const NOW = new Date('2026-11-22T10:55:03Z');
const PATH = '/hooks/v1/offer/response?x=1';
const BODY = '{"offerId":"off_123","answer":"accepted"}';
const MINUTE = 60_000;

function sign(overrides: Partial<SignRequestInput> = {}): Record<string, string> {
  return signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_1', now: NOW, ...overrides });
}

function verifyHmac(headers: VerifyHmacRequestInput['headers'], overrides: Partial<VerifyHmacRequestInput> = {}) {
  return verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers, now: NOW, ...overrides });
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
}

describe('verifyHmacRequest', () => {
  it('accepts a request we signed', () => {
    expect(verifyHmac(sign())).toEqual({ ok: true });
  });

  it('accepts a request signed independently per the spec (hand-built Authorization)', () => {
    const timestamp = '2026-11-22T10:55:03Z';
    const hex = createHmac('sha256', SECRET).update(`${timestamp}\nPOST\n${PATH}\n${BODY}`).digest('hex');

    expect(verifyHmac({ Timestamp: timestamp, Authorization: `hmac ${hex}` })).toEqual({ ok: true });
  });

  it('accepts an empty body signed as ""', () => {
    const headers = sign({ method: 'GET', body: '' });

    expect(verifyHmac(headers, { method: 'GET', body: '' })).toEqual({ ok: true });
    expect(verifyHmac(headers, { method: 'GET', body: Buffer.alloc(0) })).toEqual({ ok: true });
    expect(verifyHmac(headers, { method: 'GET', body: ' ' })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts the raw body as a Buffer', () => {
    expect(verifyHmac(sign(), { body: Buffer.from(BODY) })).toEqual({ ok: true });
  });

  it('rejects a tampered body', () => {
    expect(verifyHmac(sign(), { body: BODY.replace('accepted', 'declined') })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects re-serialised JSON (whitespace differs from the raw body)', () => {
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2);

    expect(verifyHmac(sign(), { body: pretty })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a tampered path or query', () => {
    expect(verifyHmac(sign(), { pathWithQuery: '/hooks/v1/offer/response?x=2' })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyHmac(sign(), { pathWithQuery: '/hooks/v1/offer/other?x=1' })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects a different method', () => {
    expect(verifyHmac(sign(), { method: 'PUT' })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('treats the method case-insensitively (it is signed upper-case)', () => {
    expect(verifyHmac(sign(), { method: 'post' })).toEqual({ ok: true });
  });

  it('rejects the wrong secret', () => {
    expect(verifyHmac(sign(), { secret: 'another-secret' })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a timestamp 6 minutes old', () => {
    const headers = sign({ now: new Date(NOW.getTime() - 6 * MINUTE) });

    expect(verifyHmac(headers)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('rejects a timestamp 6 minutes in the future', () => {
    const headers = sign({ now: new Date(NOW.getTime() + 6 * MINUTE) });

    expect(verifyHmac(headers)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('accepts exactly 5 minutes of skew in either direction, but not one second more', () => {
    expect(verifyHmac(sign({ now: new Date(NOW.getTime() - 5 * MINUTE) }))).toEqual({ ok: true });
    expect(verifyHmac(sign({ now: new Date(NOW.getTime() + 5 * MINUTE) }))).toEqual({ ok: true });
    expect(verifyHmac(sign({ now: new Date(NOW.getTime() - 5 * MINUTE - 1000) }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('honours a custom tolerance', () => {
    const headers = sign({ now: new Date(NOW.getTime() - 6 * MINUTE) });

    expect(verifyHmac(headers, { toleranceSeconds: 10 * 60 })).toEqual({ ok: true });
    expect(verifyHmac(sign({ now: new Date(NOW.getTime() - 31_000) }), { toleranceSeconds: 30 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('checks the timestamp against the real clock by default', () => {
    const verifyNow = (headers: Record<string, string>) =>
      verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers });

    expect(verifyNow(sign({ now: new Date() }))).toEqual({ ok: true });
    expect(verifyNow(sign({ now: new Date(Date.now() - 10 * MINUTE) }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('rejects a signature made for a different timestamp (Timestamp header swapped)', () => {
    const headers = { ...sign(), Timestamp: '2026-11-22T10:55:04Z' };

    expect(verifyHmac(headers)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it.each(['Timestamp', 'Authorization'])('reports missing_headers without %s', (name) => {
    expect(verifyHmac(withoutHeader(sign(), name))).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('reports missing_headers for no headers at all and for empty values', () => {
    expect(verifyHmac({})).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verifyHmac({ ...sign(), Authorization: '' })).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it.each([
    ['wrong scheme', 'Bearer abc'],
    ['no scheme', 'e94fd7f19cf4658f3e8dafc8207b89a3bb8b6ea8626c34c814ad1cccec5d7889'],
    ['short hex', `hmac ${'a'.repeat(63)}`],
    ['long hex', `hmac ${'a'.repeat(65)}`],
    ['non-hex', `hmac ${'g'.repeat(64)}`],
    ['base64 instead of hex', 'hmac Tqkg4STnya0XCD1pTFrh/J8hq3XayENA1CVknbZdMN8='],
    ['trailing comma', `hmac ${'a'.repeat(64)},`],
    ['one bad entry among good ones', `hmac ${'a'.repeat(64)}, nonsense`],
    ['over 1 KB', Array.from({ length: 16 }, () => `hmac ${'a'.repeat(64)}`).join(', ')],
  ])('reports malformed for an Authorization with %s', (_label, authorization) => {
    expect(verifyHmac({ ...sign(), Authorization: authorization })).toEqual({ ok: false, reason: 'malformed' });
  });

  it.each(['2026-11-22T10:55:03.000Z', '2026-11-22T10:55:03+00:00', '1795344903', 'yesterday', '2026-02-30T10:55:03Z'])(
    'reports malformed for Timestamp %p',
    (timestamp) => {
      expect(verifyHmac({ ...sign(), Timestamp: timestamp })).toEqual({ ok: false, reason: 'malformed' });
    },
  );

  it('reports malformed when Timestamp appears twice', () => {
    const headers = sign();

    expect(verifyHmac({ ...headers, timestamp: [headers.Timestamp, headers.Timestamp] })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('accepts a signature in upper-case hex with an upper-case scheme name', () => {
    const headers = sign();
    const upper = `HMAC ${headers.Authorization.slice('hmac '.length).toUpperCase()}`;

    expect(verifyHmac({ ...headers, Authorization: upper })).toEqual({ ok: true });
  });

  it('looks headers up case-insensitively and accepts Node IncomingHttpHeaders (lower-case, arrays)', () => {
    const headers = sign();
    const nodeShaped = {
      timestamp: [headers.Timestamp],
      authorization: headers.Authorization,
      'content-type': 'application/json',
      'x-unrelated': undefined,
    };

    expect(verifyHmac(nodeShaped)).toEqual({ ok: true });
    expect(verifyHmac({ TIMESTAMP: headers.Timestamp, AuThOrIzAtIoN: headers.Authorization })).toEqual({ ok: true });
  });

  it('accepts a fetch Headers object', () => {
    expect(verifyHmac(new Headers(sign()))).toEqual({ ok: true });
  });

  it('does not throw on hostile header shapes', () => {
    const hostile = { Timestamp: 42, Authorization: { toString: () => 'hmac x' } } as unknown as Record<string, string>;

    expect(verifyHmac(hostile)).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('throws for programming errors: empty secret, parsed body, negative tolerance', () => {
    expect(() => verifyHmac(sign(), { secret: '' })).toThrow(TypeError);
    expect(() => verifyHmac(sign(), { secret: [] })).toThrow(TypeError);
    expect(() => verifyHmac(sign(), { body: JSON.parse(BODY) })).toThrow(TypeError);
    expect(() => verifyHmac(sign(), { toleranceSeconds: -1 })).toThrow(RangeError);
  });
});

describe('path with query including a base-URL prefix', () => {
  // The integrator's base URL is https://partner.example.com/hooks/v1; the platform appends the route.
  const prefixedPath = '/hooks/v1/offer/response?offerId=off_123&attempt=2';

  it('verifies when the receiver uses the full request-line path', () => {
    const headers = sign({ pathWithQuery: prefixedPath });

    expect(verifyHmac(headers, { pathWithQuery: prefixedPath })).toEqual({ ok: true });
  });

  it('fails when the receiver strips the prefix or the query', () => {
    const headers = sign({ pathWithQuery: prefixedPath });

    expect(verifyHmac(headers, { pathWithQuery: '/offer/response?offerId=off_123&attempt=2' })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyHmac(headers, { pathWithQuery: '/hooks/v1/offer/response' })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});

describe('rotation', () => {
  const OLD = 'old-secret-123';
  const NEW = 'new-secret-456';

  it('a request signed with [old, new] verifies with either secret alone, in both schemes', () => {
    const headers = sign({ secrets: [OLD, NEW] });

    for (const secret of [OLD, NEW]) {
      expect(verifyHmac(headers, { secret })).toEqual({ ok: true });
      expect(verifyStandardWebhook({ secret, body: BODY, headers, now: NOW })).toEqual({ ok: true });
    }
    expect(verifyHmac(headers, { secret: 'unrelated-secret' })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts a match in either Authorization position', () => {
    const [first, second] = sign({ secrets: [OLD, NEW] }).Authorization.split(', ');
    const { Timestamp } = sign();

    expect(verifyHmac({ Timestamp, Authorization: `${second}, ${first}` }, { secret: OLD })).toEqual({ ok: true });
  });

  it('a request signed only with old fails with new', () => {
    const headers = sign({ secrets: [OLD] });

    expect(verifyHmac(headers, { secret: NEW })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyStandardWebhook({ secret: NEW, body: BODY, headers, now: NOW })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('a receiver holding both secrets accepts requests signed with either', () => {
    expect(verifyHmac(sign({ secrets: [OLD] }), { secret: [NEW, OLD] })).toEqual({ ok: true });
    expect(verifyHmac(sign({ secrets: [NEW] }), { secret: [NEW, OLD] })).toEqual({ ok: true });
  });

  it('accepts Authorization split across repeated header values', () => {
    const headers = sign({ secrets: [OLD, NEW] });

    expect(verifyHmac({ Timestamp: headers.Timestamp, authorization: headers.Authorization.split(', ') }, { secret: NEW })).toEqual({
      ok: true,
    });
  });
});

describe('verifyStandardWebhook', () => {
  const verify = (headers: Record<string, string | string[]>, overrides: { body?: string; secret?: string; now?: Date } = {}) =>
    verifyStandardWebhook({ secret: SECRET, body: BODY, headers, now: NOW, ...overrides });

  it('accepts our headers', () => {
    expect(verify(sign())).toEqual({ ok: true });
  });

  it('rejects a tampered body, wrong secret and swapped webhook-id', () => {
    expect(verify(sign(), { body: `${BODY} ` })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(sign(), { secret: 'another-secret' })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify({ ...sign(), 'webhook-id': 'evt_2' })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects stale and future timestamps', () => {
    expect(verify(sign({ now: new Date(NOW.getTime() - 6 * MINUTE) }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verify(sign({ now: new Date(NOW.getTime() + 6 * MINUTE) }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('reports missing_headers without %s', (name) => {
    expect(verify(withoutHeader(sign(), name))).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it.each([
    ['webhook-timestamp', '2026-11-22T10:55:03Z'],
    ['webhook-timestamp', '1795344903.0'],
    ['webhook-signature', 'v1'],
    ['webhook-signature', 'v1,not-base64'],
    ['webhook-signature', `v1,${'A'.repeat(43)}= v1,short`],
    ['webhook-signature', Array.from({ length: 24 }, () => `v1,${'A'.repeat(43)}=`).join(' ')],
  ])('reports malformed for %s %p', (name, value) => {
    expect(verify({ ...sign(), [name]: value })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('ignores signature versions other than v1', () => {
    const headers = sign();

    expect(verify({ ...headers, 'webhook-signature': `v1a,${'A'.repeat(86)}== ${headers['webhook-signature']}` })).toEqual({
      ok: true,
    });
    expect(verify({ ...headers, 'webhook-signature': `v1a,${'A'.repeat(86)}==` })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});

describe('verifyRequest', () => {
  it('verifies the hmac scheme from a node:http-like request', () => {
    const headers = sign();
    const request = { method: 'POST', url: PATH, headers: { timestamp: headers.Timestamp, authorization: headers.Authorization } };

    expect(verifyRequest({ secret: SECRET, request, body: Buffer.from(BODY), now: NOW })).toEqual({ ok: true });
    expect(verifyRequest({ secret: SECRET, request: { ...request, url: '/offer/response?x=1' }, body: BODY, now: NOW })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('does not accept the standard-webhooks headers alone (it checks the hmac scheme)', () => {
    const { Timestamp: _t, Authorization: _a, ...standardOnly } = sign();

    expect(verifyRequest({ secret: SECRET, request: { method: 'POST', url: PATH, headers: standardOnly }, body: BODY, now: NOW })).toEqual({
      ok: false,
      reason: 'missing_headers',
    });
  });
});
