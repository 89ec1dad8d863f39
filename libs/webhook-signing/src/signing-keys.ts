import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { KEY_ID_PATTERN } from './constants.js';
import { type Ed25519Jwk, publicJwk, type SigningKey } from './ed25519.js';

/**
 * One entry of `WEBHOOK_SIGNING_KEYS` (a JSON array; the first entry signs, every entry is published):
 * - `kid`: the key id integrators see in `webhook-key-id` and the key set;
 * - the key, one of: `privateKeyPem` (PKCS#8 PEM, as `openssl genpkey -algorithm ed25519` writes),
 *   `seed` (the 32-byte private key, base64 or base64url), or `x` (public key only, base64url: a
 *   retired key that is still published but can no longer sign);
 * - `notAfter` (ISO 8601, optional): the key is no longer published from then on. Not allowed on the
 *   first (signing) entry.
 */
export interface SigningKeyEntry {
  kid: string;
  privateKeyPem?: string;
  seed?: string;
  x?: string;
  notAfter?: string;
}

const MAX_KEYS = 10;
// PKCS#8 DER of an ed25519 private key is this prefix followed by the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface PublishedKey {
  readonly jwk: Ed25519Jwk;
  readonly notAfter?: Date;
}

/** A published key as the portal shows it. */
export interface PublishedKeyValidity {
  kid: string;
  x: string;
  /** The key that signs `v1a` now (the first configured). */
  signs: boolean;
  /** From when it is no longer published (ISO 8601); null for no end. */
  notAfter: string | null;
}

/**
 * The platform's ed25519 keys: the one that signs `v1a` and every key that is published, from
 * configuration only (never the database). Error messages name the entry and the rule, never key material.
 */
export class SigningKeyRing {
  private constructor(
    readonly active: SigningKey,
    private readonly published: readonly PublishedKey[],
  ) {}

  /** Parses `WEBHOOK_SIGNING_KEYS`. Throws a TypeError naming what is wrong (never the key itself). */
  static parse(json: string): SigningKeyRing {
    let entries: unknown;
    try {
      entries = JSON.parse(json);
    } catch {
      throw new TypeError('must be a JSON array of {kid, privateKeyPem | seed | x, notAfter?}');
    }
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_KEYS) {
      throw new TypeError(`must be a JSON array of 1 to ${MAX_KEYS} keys, the signing key first`);
    }
    const kids = new Set<string>();
    const keys = entries.map((entry, index) => {
      const key = parseEntry(entry, index);
      if (kids.has(key.kid)) throw new TypeError(`key ${index + 1}: kid "${key.kid}" is used twice`);
      kids.add(key.kid);
      return key;
    });
    const [first] = keys;
    if (!first.privateKey) throw new TypeError('key 1 signs, so it needs privateKeyPem or seed (not only x)');
    if (first.notAfter) throw new TypeError('key 1 signs, so it cannot have notAfter (put the new key first)');
    return new SigningKeyRing(
      { kid: first.kid, privateKey: first.privateKey },
      keys.map((key) => ({ jwk: publicJwk(key.kid, key.publicKey), notAfter: key.notAfter })),
    );
  }

  /**
   * The keys of a service's settings: `WEBHOOK_SIGNING_KEYS`, or the file `WEBHOOK_SIGNING_KEYS_FILE` names
   * (read once, into `WEBHOOK_SIGNING_KEYS`). Outside production an empty `WEBHOOK_SIGNING_KEYS` is filled in
   * with a key generated now (kid `dev-…`), written back to `settings` so every later read (and a
   * worker process given the same environment) uses that same key. Services that sign side by side
   * must share one value: the dev launcher and the test harness generate one for all of them.
   * Throws a TypeError whose message starts with the variable's name and never contains key material.
   */
  static fromSettings(settings: { WEBHOOK_SIGNING_KEYS: string; WEBHOOK_SIGNING_KEYS_FILE?: string; NODE_ENV: string }): SigningKeyRing {
    const file = settings.WEBHOOK_SIGNING_KEYS_FILE ?? '';
    if (file !== '') {
      if (settings.WEBHOOK_SIGNING_KEYS.trim() !== '') throw new TypeError('WEBHOOK_SIGNING_KEYS: set it or WEBHOOK_SIGNING_KEYS_FILE, not both');
      try {
        settings.WEBHOOK_SIGNING_KEYS = readFileSync(file, 'utf8');
      } catch (error) {
        throw new TypeError(`WEBHOOK_SIGNING_KEYS_FILE: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      settings.WEBHOOK_SIGNING_KEYS_FILE = '';
    }
    if (settings.WEBHOOK_SIGNING_KEYS.trim() === '') {
      if (settings.NODE_ENV === 'production') throw new TypeError('WEBHOOK_SIGNING_KEYS: must be set when NODE_ENV is production');
      settings.WEBHOOK_SIGNING_KEYS = generateSigningKeysJson();
    }
    try {
      return SigningKeyRing.parse(settings.WEBHOOK_SIGNING_KEYS);
    } catch (error) {
      throw new TypeError(`WEBHOOK_SIGNING_KEYS: ${(error as Error).message}`);
    }
  }

  /** The JWKS document to publish at `now`: every configured key whose `notAfter` has not passed. */
  keySet(now = new Date()): { keys: Ed25519Jwk[] } {
    return { keys: this.publishedAt(now).map((key) => key.jwk) };
  }

  /** The keys published at `now` with their validity: whether it signs, and until when it is published (null: no end). */
  publishedKeys(now = new Date()): PublishedKeyValidity[] {
    return this.publishedAt(now).map((key) => ({ kid: key.jwk.kid, x: key.jwk.x, signs: key.jwk.kid === this.active.kid, notAfter: key.notAfter?.toISOString() ?? null }));
  }

  private publishedAt(now: Date): readonly PublishedKey[] {
    return this.published.filter((key) => !key.notAfter || key.notAfter > now);
  }
}

/** `WEBHOOK_SIGNING_KEYS` with one newly generated key (for development, tests, or a first deployment). */
export function generateSigningKeysJson(kid = `dev-${randomBytes(4).toString('hex')}`): string {
  return JSON.stringify([generateSigningKeyEntry(kid)]);
}

/** A new ed25519 key as a `WEBHOOK_SIGNING_KEYS` entry. */
export function generateSigningKeyEntry(kid: string): SigningKeyEntry {
  if (!KEY_ID_PATTERN.test(kid)) throw new TypeError('kid must be 1-64 characters of letters, digits, ".", "_" or "-"');
  const { privateKey } = generateKeyPairSync('ed25519');
  return { kid, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

function parseEntry(entry: unknown, index: number): { kid: string; privateKey?: KeyObject; publicKey: KeyObject; notAfter?: Date } {
  const where = `key ${index + 1}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new TypeError(`${where}: must be an object`);
  const { kid, privateKeyPem, seed, x, notAfter } = entry as Record<string, unknown>;
  if (typeof kid !== 'string' || !KEY_ID_PATTERN.test(kid)) throw new TypeError(`${where}: kid must be 1-64 characters of letters, digits, ".", "_" or "-"`);
  const given = [privateKeyPem, seed, x].filter((value) => value !== undefined).length;
  if (given !== 1) throw new TypeError(`${where} (${kid}): give exactly one of privateKeyPem, seed or x`);
  let until: Date | undefined;
  if (notAfter !== undefined) {
    until = typeof notAfter === 'string' ? new Date(notAfter) : new Date(Number.NaN);
    if (Number.isNaN(until.getTime())) throw new TypeError(`${where} (${kid}): notAfter must be an ISO 8601 date-time`);
  }
  let privateKey: KeyObject | undefined;
  let publicKey: KeyObject;
  try {
    if (typeof privateKeyPem === 'string') privateKey = createPrivateKey({ key: privateKeyPem, format: 'pem' });
    else if (typeof seed === 'string') privateKey = privateKeyFromSeed(seed);
    publicKey = privateKey
      ? createPublicKey(privateKey)
      : createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: typeof x === 'string' ? x : '' }, format: 'jwk' });
  } catch {
    throw new TypeError(`${where} (${kid}): not a readable ed25519 key`);
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new TypeError(`${where} (${kid}): must be an ed25519 key`);
  return { kid, privateKey, publicKey, notAfter: until };
}

function privateKeyFromSeed(seed: string): KeyObject {
  const bytes = Buffer.from(seed, /[-_]/.test(seed) ? 'base64url' : 'base64');
  if (bytes.length !== 32) throw new TypeError('seed must be 32 bytes');
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
}
