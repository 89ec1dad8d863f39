import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import {
  createRequestSigner,
  KeySet,
  publicJwk,
  signRequest,
  type SigningKey,
  verifyHmacRequest,
  verifyStandardWebhook,
  verifyWithKeySet,
} from './index.js';

const SECRET = 'integrator-secret-1';
const NOW = new Date('2026-11-22T10:55:03Z');
const PATH = '/hooks/v1/offer/response';
const BODY = '{"offerId":"off_123","answer":"accepted"}';

function newKey(kid: string): SigningKey {
  return { kid, privateKey: generateKeyPairSync('ed25519').privateKey };
}

const KEY = newKey('2026-11');
const OTHER = newKey('2026-12');
const KEY_SET = { keys: [publicJwk(KEY.kid, KEY.privateKey), publicJwk(OTHER.kid, OTHER.privateKey)] };

function signV1a(body: string | Buffer = BODY, webhookId = 'evt_1', key = KEY, now = NOW) {
  return signRequest({ secrets: [], method: 'POST', pathWithQuery: PATH, body, webhookId, now, schemes: ['v1a'], signingKey: key });
}

const verifyAt = (headers: Record<string, string | undefined>, body: string | Buffer = BODY, keySet: object = KEY_SET) =>
  verifyWithKeySet({ headers }, body, keySet as { keys: unknown[] }, { now: NOW });

describe('v1a (ed25519) signing', () => {
  it('signs id.timestamp.body with the active key and names it in webhook-key-id', () => {
    const headers = signV1a();
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-key-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-key-id']).toBe('2026-11');
    expect(headers['webhook-timestamp']).toBe('1795344903');
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifyAt(headers)).toEqual({ ok: true });
  });

  it('adds v1a beside hmac and v1, which still verify (and standardwebhooks ignores the v1a entry)', () => {
    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_1', schemes: ['v1a', 'hmac', 'v1'], signingKey: KEY });
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/);
    expect(verifyWithKeySet({ headers }, BODY, KEY_SET)).toEqual({ ok: true });
    expect(verifyHmacRequest({ secret: SECRET, method: 'POST', pathWithQuery: PATH, body: BODY, headers })).toEqual({ ok: true });
    expect(verifyStandardWebhook({ secret: SECRET, body: BODY, headers })).toEqual({ ok: true });
    expect(new Webhook(SECRET, { format: 'raw' }).verify(BODY, headers as Record<string, string>)).toEqual(JSON.parse(BODY));
  });

  it('signs only the chosen schemes', () => {
    const hmacOnly = signRequest({ secrets: [SECRET], method: 'GET', pathWithQuery: '/test/auth', body: '', webhookId: 'evt_1', schemes: ['hmac'] });
    expect(Object.keys(hmacOnly).sort()).toEqual(['Authorization', 'Timestamp', 'webhook-id', 'webhook-timestamp']);
    const v1Only = signRequest({ secrets: [SECRET], method: 'GET', pathWithQuery: '/x', body: '', webhookId: 'evt_1', schemes: ['v1'] });
    expect(Object.keys(v1Only).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
  });

  it('refuses v1a without a signing key, a public key, a bad kid or unknown schemes (programming errors)', () => {
    const base = { secrets: [], method: 'POST', pathWithQuery: PATH };
    expect(() => createRequestSigner({ ...base, schemes: ['v1a'] })).toThrow(TypeError);
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(() => createRequestSigner({ ...base, schemes: ['v1a'], signingKey: { kid: 'k', privateKey: publicKey } })).toThrow(TypeError);
    expect(() => createRequestSigner({ ...base, schemes: ['v1a'], signingKey: { kid: 'bad kid', privateKey: KEY.privateKey } })).toThrow(TypeError);
    expect(() => createRequestSigner({ ...base, schemes: ['v2' as 'v1'] })).toThrow(TypeError);
    expect(() => createRequestSigner({ ...base, schemes: [] })).toThrow(TypeError);
    // hmac and v1 still need a secret
    expect(() => createRequestSigner({ ...base, schemes: ['hmac', 'v1a'], signingKey: KEY })).toThrow(TypeError);
  });
});

describe('verifyWithKeySet', () => {
  const webhookIds = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);

  it('round-trips any body and id, as a string or a Buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), webhookIds, fc.boolean(), (text, webhookId, asBuffer) => {
        const body = asBuffer ? Buffer.from(text, 'utf8') : text;
        const headers = signV1a(body, webhookId);
        expect(verifyAt(headers, body)).toEqual({ ok: true });
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a tampered body, id or timestamp', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ minLength: 1, maxLength: 20 }), webhookIds, (text, extra, webhookId) => {
        const headers = signV1a(text, webhookId);
        expect(verifyAt(headers, `${text}${extra}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
        expect(verifyAt({ ...headers, 'webhook-id': `${webhookId}x` }, text)).toEqual({ ok: false, reason: 'signature_mismatch' });
        const later = String(Number(headers['webhook-timestamp']) + 1);
        expect(verifyAt({ ...headers, 'webhook-timestamp': later }, text)).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
      { numRuns: 50 },
    );
  });

  it('refuses a signature made by another key than the one named', () => {
    const headers = signV1a(BODY, 'evt_1', OTHER);
    expect(verifyAt({ ...headers, 'webhook-key-id': KEY.kid })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a key id that is not in the key set, and a key outside the set that claims an id in it', () => {
    const stranger = newKey('2026-11');
    expect(verifyAt(signV1a(BODY, 'evt_1', newKey('unknown')))).toEqual({ ok: false, reason: 'unknown_key' });
    expect(verifyAt(signV1a(BODY, 'evt_1', stranger))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses stale and future timestamps', () => {
    const old = signV1a(BODY, 'evt_1', KEY, new Date(NOW.getTime() - 301_000));
    const future = signV1a(BODY, 'evt_1', KEY, new Date(NOW.getTime() + 301_000));
    expect(verifyAt(old)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyAt(future)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('answers missing headers and malformed values without throwing', () => {
    const headers = signV1a();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id']) {
      expect(verifyAt({ ...headers, [name]: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    }
    expect(verifyAt({ ...headers, 'webhook-signature': 'v1a,abc' })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAt({ ...headers, 'webhook-key-id': 'a b' })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAt({ ...headers, 'webhook-timestamp': 'soon' })).toEqual({ ok: false, reason: 'malformed' });
    // only v1 entries: nothing that could match
    const v1Only = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_1', now: NOW });
    expect(verifyAt({ ...v1Only, 'webhook-key-id': KEY.kid })).toEqual({ ok: false, reason: 'signature_mismatch' });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id'), fc.string()), (junk) => {
        expect(() => verifyAt({ ...headers, ...junk })).not.toThrow();
      }),
    );
  });

  it('reads a JWKS document, skipping keys it cannot use, and trusts no kid published twice', () => {
    const otherJwk = publicJwk(OTHER.kid, OTHER.privateKey);
    const keySet = KeySet.from({
      keys: [
        { kty: 'RSA', kid: 'rsa', n: 'x', e: 'AQAB' },
        { ...otherJwk, use: 'enc' },
        publicJwk(KEY.kid, KEY.privateKey),
        null,
        { ...otherJwk, kid: 'twice' },
        { ...publicJwk(KEY.kid, KEY.privateKey), kid: 'twice' },
      ],
    });
    expect(keySet.kids).toEqual([KEY.kid]);
    expect(() => KeySet.from({ keys: 'none' })).toThrow(TypeError);
    expect(() => KeySet.from(null)).toThrow(TypeError);
  });
});
