import { describe, expect, it } from '@jest/globals';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { generateSigningKeyEntry, generateSigningKeysJson, signRequest, SigningKeyRing, verifyWithKeySet } from './index.js';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('SigningKeyRing (WEBHOOK_SIGNING_KEYS)', () => {
  it('signs with the first key and publishes every key, so old and new signatures both verify', () => {
    const oldEntry = generateSigningKeyEntry('2026-10');
    const newEntry = generateSigningKeyEntry('2026-11');
    const before = SigningKeyRing.parse(JSON.stringify([oldEntry]));
    const after = SigningKeyRing.parse(JSON.stringify([newEntry, oldEntry]));
    expect(after.active.kid).toBe('2026-11');
    expect(after.keySet().keys.map((key) => key.kid)).toEqual(['2026-11', '2026-10']);
    expect(after.keySet().keys[0]).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: '2026-11', use: 'sig', alg: 'EdDSA' });
    for (const ring of [before, after]) {
      const headers = signRequest({ secrets: [], method: 'POST', pathWithQuery: '/x', body: '{}', webhookId: 'evt', schemes: ['v1a'], signingKey: ring.active });
      expect(verifyWithKeySet({ headers }, '{}', after.keySet())).toEqual({ ok: true });
    }
  });

  it('reads a seed (base64 or base64url) and a public-only retired key, and stops publishing after notAfter', () => {
    const seed = Buffer.alloc(32, 7);
    const { x } = createPublicKey(generateKeyPairSync('ed25519').privateKey).export({ format: 'jwk' });
    const ring = SigningKeyRing.parse(
      JSON.stringify([
        { kid: 'a', seed: seed.toString('base64') },
        { kid: 'b', seed: seed.toString('base64url').replace(/^./, '-') },
        { kid: 'c', x, notAfter: '2026-12-01T00:00:00Z' },
      ]),
    );
    expect(ring.keySet(new Date('2026-11-30T00:00:00Z')).keys.map((key) => key.kid)).toEqual(['a', 'b', 'c']);
    expect(ring.keySet(new Date('2026-12-01T00:00:00Z')).keys.map((key) => key.kid)).toEqual(['a', 'b']);
    // Each published key with its validity: the first signs; one with notAfter is published until then.
    expect(ring.publishedKeys(new Date('2026-11-30T00:00:00Z'))).toEqual([
      { kid: 'a', x: ring.keySet().keys[0].x, signs: true, notAfter: null },
      { kid: 'b', x: ring.keySet().keys[1].x, signs: false, notAfter: null },
      { kid: 'c', x, signs: false, notAfter: '2026-12-01T00:00:00.000Z' },
    ]);
    expect(ring.publishedKeys(new Date('2026-12-01T00:00:00Z')).map((key) => key.kid)).toEqual(['a', 'b']);
    // Same seed, same key: the seed is the private key (RFC 8032), so anyone with it can sign.
    expect(SigningKeyRing.parse(JSON.stringify([{ kid: 'a', seed: seed.toString('base64') }])).keySet().keys[0].x).toBe(ring.keySet().keys[0].x);
  });

  it('refuses bad configuration with messages that never contain key material', () => {
    const secretPem = pem();
    const cases: Array<[unknown, RegExp]> = [
      ['not json', /JSON array/],
      [[], /1 to 10 keys/],
      [[{ kid: 'bad kid', privateKeyPem: secretPem }], /key 1: kid/],
      [[{ kid: 'a' }], /exactly one of/],
      [[{ kid: 'a', privateKeyPem: secretPem, seed: 'AAAA' }], /exactly one of/],
      [[{ kid: 'a', privateKeyPem: secretPem.replace('MC4C', 'MC4D') }], /not a readable ed25519 key/],
      [[{ kid: 'a', seed: 'c2hvcnQ=' }], /not a readable ed25519 key/],
      [[{ kid: 'a', privateKeyPem: secretPem }, { kid: 'a', privateKeyPem: pem() }], /used twice/],
      [[{ kid: 'a', x: 'A'.repeat(43) }], /key 1 signs/],
      [[{ kid: 'a', privateKeyPem: secretPem, notAfter: '2030-01-01T00:00:00Z' }], /cannot have notAfter/],
      [[{ kid: 'a', privateKeyPem: secretPem }, { kid: 'b', privateKeyPem: pem(), notAfter: 'soon' }], /notAfter must be/],
      [[{ kid: 'a', privateKeyPem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) }], /ed25519/],
    ];
    for (const [value, message] of cases) {
      const json = typeof value === 'string' ? value : JSON.stringify(value);
      expect(() => SigningKeyRing.parse(json)).toThrow(message);
      try {
        SigningKeyRing.parse(json);
      } catch (error) {
        expect((error as Error).message).not.toContain('PRIVATE KEY');
        expect((error as Error).message).not.toContain(secretPem.split('\n')[1]);
      }
    }
  });

  it('generates a development key outside production only', () => {
    const settings = { WEBHOOK_SIGNING_KEYS: '', NODE_ENV: 'development' };
    const dev = SigningKeyRing.fromSettings(settings);
    expect(dev.active.kid).toMatch(/^dev-[0-9a-f]{8}$/);
    // written back: the same key on every later read
    expect(SigningKeyRing.fromSettings(settings).keySet()).toEqual(dev.keySet());
    expect(() => SigningKeyRing.fromSettings({ WEBHOOK_SIGNING_KEYS: '', NODE_ENV: 'production' })).toThrow(/^WEBHOOK_SIGNING_KEYS: must be set/);
    expect(() => SigningKeyRing.fromSettings({ WEBHOOK_SIGNING_KEYS: '[]', NODE_ENV: 'production' })).toThrow(/^WEBHOOK_SIGNING_KEYS: must be a JSON array/);
    const configured = generateSigningKeysJson('prod-1');
    expect(SigningKeyRing.fromSettings({ WEBHOOK_SIGNING_KEYS: configured, NODE_ENV: 'production' }).active.kid).toBe('prod-1');
  });
});

describe('WEBHOOK_SIGNING_KEYS_FILE', () => {
  it('reads the keys from a file instead of the variable, and refuses both or an unreadable file', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'signing-keys-'));
    const file = join(dir, 'keys.json');
    writeFileSync(file, generateSigningKeysJson('from-file'));
    expect(SigningKeyRing.fromSettings({ WEBHOOK_SIGNING_KEYS: '', WEBHOOK_SIGNING_KEYS_FILE: file, NODE_ENV: 'production' }).active.kid).toBe('from-file');
    const both = { WEBHOOK_SIGNING_KEYS: generateSigningKeysJson('env'), WEBHOOK_SIGNING_KEYS_FILE: file, NODE_ENV: 'production' };
    expect(() => SigningKeyRing.fromSettings(both)).toThrow(/not both/);
    const missing = { WEBHOOK_SIGNING_KEYS: '', WEBHOOK_SIGNING_KEYS_FILE: join(dir, 'none.json'), NODE_ENV: 'production' };
    expect(() => SigningKeyRing.fromSettings(missing)).toThrow(/WEBHOOK_SIGNING_KEYS_FILE: cannot be read \(ENOENT\)/);
  });
});
