import { createPublicKey, type KeyObject, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { KEY_ID_PATTERN } from './constants.js';
import type { RawBody } from './signature.js';

/** The platform's active signer: an ed25519 private key and the id it is published under. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

/** One public key of a JWKS document, as the platform publishes it (RFC 8037 `OKP` / `Ed25519`). */
export interface Ed25519Jwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  /** The 32-byte public key, base64url without padding. */
  readonly x: string;
  readonly kid: string;
  readonly use: 'sig';
  readonly alg: 'EdDSA';
}

/** A JWKS document: `{ "keys": [...] }`. */
export interface JsonWebKeySet {
  readonly keys: readonly unknown[];
}

/** Throws a TypeError unless `kid` is a usable key id (it comes from configuration). */
export function assertKeyId(kid: unknown): asserts kid is string {
  if (typeof kid !== 'string' || !KEY_ID_PATTERN.test(kid)) {
    throw new TypeError('key id must be 1-64 characters of letters, digits, ".", "_" or "-"');
  }
}

/** Throws a TypeError unless `key` is an ed25519 key object of the given type. */
export function assertEd25519(key: unknown, type: 'private' | 'public'): asserts key is KeyObject {
  const candidate = key as KeyObject | undefined;
  if (typeof candidate?.asymmetricKeyType !== 'string' || candidate.asymmetricKeyType !== 'ed25519' || candidate.type !== type) {
    throw new TypeError(`expected an ed25519 ${type} key`);
  }
}

/** The bytes `v1a` signs: `${webhookId}.${unixSeconds}.` followed by the raw body, as Standard Webhooks defines. */
function signedContent(webhookId: string, unixSeconds: number, body: RawBody): Buffer {
  const prefix = Buffer.from(`${webhookId}.${unixSeconds}.`, 'utf8');
  return Buffer.concat([prefix, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** Base64 `v1a` signature, i.e. what follows `v1a,` in `webhook-signature`. */
export function computeV1aSignature(privateKey: KeyObject, webhookId: string, unixSeconds: number, body: RawBody): string {
  return cryptoSign(null, signedContent(webhookId, unixSeconds, body), privateKey).toString('base64');
}

/** Whether `signature` (64 raw bytes) is `publicKey`'s ed25519 signature of the `v1a` content. */
export function isV1aSignatureValid(publicKey: KeyObject, webhookId: string, unixSeconds: number, body: RawBody, signature: Buffer): boolean {
  return cryptoVerify(null, signedContent(webhookId, unixSeconds, body), publicKey, signature);
}

/** The JWK under which a key's public half is published. */
export function publicJwk(kid: string, key: KeyObject): Ed25519Jwk {
  assertKeyId(kid);
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  assertEd25519(publicKey, 'public');
  const { x } = publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x as string, kid, use: 'sig', alg: 'EdDSA' };
}

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

/**
 * The ed25519 verification keys of a JWKS document, by `kid`. Entries that are not usable ed25519
 * signing keys (other key types, `use` other than `sig`, no or duplicate `kid`) are skipped, as JWKS
 * consumers do, so the platform can publish other kinds of key later without breaking verifiers.
 */
export class KeySet {
  private constructor(private readonly keys: ReadonlyMap<string, KeyObject>) {}

  /** Throws a TypeError if `document` is not a JWKS document (an object with a `keys` array). */
  static from(document: unknown): KeySet {
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (typeof document !== 'object' || document === null || !Array.isArray(keys)) {
      throw new TypeError('a key set must be a JWKS document: {"keys": [...]}');
    }
    const byKid = new Map<string, KeyObject>();
    const duplicated = new Set<string>();
    for (const entry of keys.slice(0, 100)) {
      const jwk = entry as Partial<Record<string, unknown>> | null;
      if (typeof jwk !== 'object' || jwk === null) continue;
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || (jwk.use !== undefined && jwk.use !== 'sig')) continue;
      if (jwk.alg !== undefined && jwk.alg !== 'EdDSA' && jwk.alg !== 'Ed25519') continue;
      if (typeof jwk.kid !== 'string' || !KEY_ID_PATTERN.test(jwk.kid) || typeof jwk.x !== 'string' || !BASE64URL_32_BYTES.test(jwk.x)) continue;
      if (byKid.has(jwk.kid)) duplicated.add(jwk.kid);
      try {
        byKid.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
      } catch {
        // not a valid point: skipped like any other unusable entry
      }
    }
    // Two keys under one id: a verifier could not know which is meant, so neither is trusted.
    for (const kid of duplicated) byKid.delete(kid);
    return new KeySet(byKid);
  }

  get(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }

  has(kid: string): boolean {
    return this.keys.has(kid);
  }

  get kids(): string[] {
    return [...this.keys.keys()];
  }
}
