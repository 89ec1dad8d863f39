import { describe, expect, it } from '@jest/globals';
import { readHeader } from './headers.js';
import { signRequest, verifyHmacRequest, verifyRequest, verifyStandardWebhook, type SignRequestInput } from './index.js';
import { matchesAnyDigest } from './signature.js';
import { parseTimestamp, toUnixSeconds } from './timestamp.js';

/**
 * The edges of signing and verifying: input limits, header quirks and the exact errors a caller's
 * programming mistake gets. Each case here was a mutant no other test noticed (docs/testing.md).
 */
const SECRET = 'current-secret';
const NOW = new Date('2026-11-22T10:55:03Z');
const PATH = '/offer/response';
const BODY = '{"offerId":"off_123"}';

function sign(overrides: Partial<SignRequestInput> = {}): Record<string, string> {
  return signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_1', now: NOW, ...overrides });
}

const verifyStandard = (headers: Record<string, string | string[]>) => verifyStandardWebhook({ secret: SECRET, body: BODY, headers, now: NOW });
const verifyHmac = (headers: Record<string, string | string[]>) =>
  verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers, now: NOW });

describe('readHeader', () => {
  const options = { maxLength: 5 };

  it('finds a header in any casing; an absent or empty one is missing', () => {
    expect(readHeader({ 'X-Thing': 'abc' }, 'x-thing', options)).toEqual({ status: 'present', value: 'abc' });
    expect(readHeader({ 'x-thing': '' }, 'x-thing', options)).toEqual({ status: 'missing' });
    expect(readHeader({}, 'x-thing', options)).toEqual({ status: 'missing' });
  });

  it('takes values up to maxLength characters', () => {
    expect(readHeader({ 'x-thing': 'abcde' }, 'x-thing', options)).toEqual({ status: 'present', value: 'abcde' });
    expect(readHeader({ 'x-thing': 'abcdef' }, 'x-thing', options)).toEqual({ status: 'malformed' });
  });

  it('refuses a repeated header unless it is a list, and skips what is not a string', () => {
    expect(readHeader({ 'x-thing': ['a', 'b'] }, 'x-thing', options)).toEqual({ status: 'malformed' });
    expect(readHeader({ 'x-thing': ['a', 'b'] }, 'x-thing', { ...options, listSeparator: ',' })).toEqual({ status: 'present', value: 'a,b' });
    const odd = { 'x-thing': ['a', 5, null] } as unknown as Record<string, string[]>;
    expect(readHeader(odd, 'x-thing', options)).toEqual({ status: 'present', value: 'a' });
  });

  it('reads fetch Headers, and treats anything that is not headers as having none', () => {
    expect(readHeader(new Headers({ 'X-Thing': 'abc' }), 'x-thing', options)).toEqual({ status: 'present', value: 'abc' });
    expect(readHeader(new Headers(), 'x-thing', options)).toEqual({ status: 'missing' });
    for (const notHeaders of [null, undefined, 'x-thing: abc', 42]) {
      expect(readHeader(notHeaders as never, 'x-thing', options)).toEqual({ status: 'missing' });
    }
  });
});

describe('signing refuses bad input with a TypeError that says what is wrong', () => {
  it('secrets', () => {
    expect(() => sign({ secrets: [42 as never] })).toThrow(new TypeError('webhook secret must be a non-empty string'));
    expect(() => sign({ secrets: [''] })).toThrow(new TypeError('webhook secret must be a non-empty string'));
    expect(() => sign({ secrets: ['with space'] })).toThrow(new TypeError('webhook secret must contain only visible ASCII characters (no whitespace)'));
    expect(() => sign({ secrets: [] })).toThrow(new TypeError('at least one webhook secret is required'));
    expect(() => sign({ secrets: ['a', 'b', 'c'] })).toThrow(new TypeError('at most 2 signing secrets are allowed'));
  });

  it('method and path', () => {
    const methodError = new TypeError('method must be an HTTP method token, e.g. "POST"');
    expect(() => sign({ method: 42 as never })).toThrow(methodError);
    expect(() => sign({ method: 'PO ST' })).toThrow(methodError);
    const pathError = new TypeError('pathWithQuery must start with "/" and contain only visible ASCII (percent-encode the rest)');
    expect(() => sign({ pathWithQuery: ['/offer'] as never })).toThrow(pathError);
    expect(() => sign({ pathWithQuery: 'offer' })).toThrow(pathError);
  });

  it('webhook ids: 1 to 256 visible ASCII characters', () => {
    const idError = new TypeError('webhookId must be 1-256 visible ASCII characters');
    expect(sign({ webhookId: 'a'.repeat(256) })['webhook-id']).toHaveLength(256);
    expect(() => sign({ webhookId: 'a'.repeat(257) })).toThrow(idError);
    expect(sign({ webhookId: '!~' })['webhook-id']).toBe('!~');
    for (const bad of ['', ' ', 'a b', '\x7f', 'é', 42 as never]) expect(() => sign({ webhookId: bad })).toThrow(idError);
  });

  it('bodies and instants', () => {
    expect(() => sign({ body: { offerId: 'x' } as never })).toThrow(
      new TypeError('body must be the raw request body as a string or Buffer ("" when empty), not parsed JSON'),
    );
    expect(() => toUnixSeconds(new Date(Number.NaN))).toThrow(new RangeError('Invalid Date'));
    expect(() => sign({ now: new Date('not a date') })).toThrow(RangeError);
  });
});

describe('verifying', () => {
  it('throws for a caller’s mistake even when the request carries no signature', () => {
    expect(() => verifyHmacRequest({ secret: SECRET, method: undefined as never, pathWithQuery: PATH, body: BODY, headers: {} })).toThrow(
      new TypeError('method and pathWithQuery must be strings'),
    );
    expect(() => verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: undefined as never, body: BODY, headers: {} })).toThrow(
      new TypeError('method and pathWithQuery must be strings'),
    );
    const requestError = new TypeError('request must carry the method and url of an incoming HTTP request');
    expect(() => verifyRequest({ secret: SECRET, body: BODY, request: undefined as never })).toThrow(requestError);
    expect(() => verifyRequest({ secret: SECRET, body: BODY, request: { url: PATH, headers: {} } })).toThrow(requestError);
    expect(() => verifyRequest({ secret: SECRET, body: BODY, request: { method: 'POST', headers: {} } })).toThrow(requestError);
    expect(() => verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers: {}, toleranceSeconds: -1 })).toThrow(
      new RangeError('toleranceSeconds must be a finite, non-negative number'),
    );
  });

  it('a tolerance of 0 accepts a request signed this very second', () => {
    expect(verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers: sign(), now: NOW, toleranceSeconds: 0 })).toEqual({ ok: true });
  });

  it('a missing header wins over a malformed one', () => {
    const { Timestamp: _timestamp, ...noTimestamp } = sign();
    expect(verifyHmac({ ...noTimestamp, Authorization: 'x'.repeat(2_000) })).toEqual({ ok: false, reason: 'missing_headers' });
    const { 'webhook-id': _id, ...noId } = sign();
    expect(verifyStandard({ ...noId, 'webhook-signature': 'x'.repeat(2_000) })).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('an unreadable Timestamp is malformed', () => {
    expect(parseTimestamp('2026-13-45T99:99:99Z')).toBeUndefined();
    expect(verifyHmac({ ...sign(), Timestamp: '2026-13-45T99:99:99Z' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('reads Authorization entries only in the form "hmac <hex>"', () => {
    const { Authorization: authorization } = sign();
    expect(verifyHmac({ ...sign(), Authorization: authorization.replace('hmac ', 'hmac   ') })).toEqual({ ok: true });
    expect(verifyHmac({ ...sign(), Authorization: `Bearer ${authorization}` })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyHmac({ ...sign(), Authorization: `${authorization}0` })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('reads webhook-signature entries only in the form "v1,<base64 of 32 bytes>", however they are spaced or split over headers', () => {
    const headers = sign({ secrets: [SECRET, 'next-secret'] });
    const [first, second] = headers['webhook-signature'].split(' ');
    expect(verifyStandard({ ...headers, 'webhook-signature': `${first}  ${second}` })).toEqual({ ok: true });
    expect(verifyStandard({ ...headers, 'webhook-signature': [second, first] })).toEqual({ ok: true });
    expect(verifyStandard({ ...headers, 'webhook-signature': `,${first.slice(3)}` })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyStandard({ ...headers, 'webhook-signature': `v1,AA${first.slice(3)}` })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyStandard({ ...headers, 'webhook-signature': `${first}AA` })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a webhook-id longer than 256 characters is malformed', () => {
    const headers = sign({ webhookId: 'a'.repeat(256) });
    expect(verifyStandard(headers)).toEqual({ ok: true });
    expect(verifyStandard({ ...headers, 'webhook-id': 'a'.repeat(257) })).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('matchesAnyDigest', () => {
  it('counts a candidate of another length as a miss, without throwing', () => {
    const digest = Buffer.alloc(32, 7);
    expect(matchesAnyDigest([Buffer.alloc(16, 7)], [digest])).toBe(false);
    expect(matchesAnyDigest([Buffer.alloc(16, 7), Buffer.alloc(32, 7)], [digest])).toBe(true);
    expect(matchesAnyDigest([], [digest])).toBe(false);
  });
});
