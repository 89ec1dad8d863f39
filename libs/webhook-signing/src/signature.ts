import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/** A request body exactly as it travels on the wire. `''` (or an empty buffer) when there is none. */
export type RawBody = string | Uint8Array;

export interface HmacSignedParts {
  /** The `Timestamp` header value, e.g. `2026-11-22T10:55:03Z`. */
  readonly timestamp: string;
  readonly method: string;
  /** Path and query exactly as on the HTTP request line, e.g. `/hooks/v1/offer/response?x=1`. */
  readonly pathWithQuery: string;
  readonly body: RawBody;
}

/**
 * The text signed by the `hmac` scheme, minus the body: `Timestamp\nMETHOD\npathWithQuery\n`.
 * The raw body bytes follow it directly. Exported so integrators can debug their own implementation.
 */
export function hmacStringToSignPrefix(parts: Omit<HmacSignedParts, 'body'>): string {
  return `${parts.timestamp}\n${parts.method.toUpperCase()}\n${parts.pathWithQuery}\n`;
}

/** The HMAC key of a secret: its UTF-8 bytes. Import it once when signing or verifying repeatedly. */
export function hmacKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

/** HMAC-SHA256 of `prefix` (UTF-8) followed by the raw body bytes. */
export function keyedHmac(key: KeyObject | Buffer, prefix: string, body: RawBody): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
}

// Senders sign and receivers verify with the same few secrets again and again; importing a key costs
// about as much as the HMAC itself. Bounded, and cleared when full.
const cachedKeys = new Map<string, KeyObject>();

/** The HMAC key of a secret, imported once and kept (a bounded cache). */
export function cachedKey(secret: string): KeyObject {
  let key = cachedKeys.get(secret);
  if (key === undefined) {
    if (cachedKeys.size >= 1_000) cachedKeys.clear();
    key = hmacKey(secret);
    cachedKeys.set(secret, key);
  }
  return key;
}

/** Raw HMAC-SHA256 digest of the `hmac` scheme. The body is hashed as bytes, never re-encoded. */
export function hmacDigest(secret: string, parts: HmacSignedParts): Buffer {
  return keyedHmac(cachedKey(secret), hmacStringToSignPrefix(parts), parts.body);
}

/** Lowercase hex `hmac` signature, i.e. what follows `hmac ` in the `Authorization` header. */
export function computeHmacSignature(secret: string, parts: HmacSignedParts): string {
  return hmacDigest(secret, parts).toString('hex');
}

/** Raw HMAC-SHA256 digest of the Standard Webhooks scheme over `${id}.${timestamp}.${body}`. */
export function standardWebhookDigest(secret: string, webhookId: string, unixSeconds: number, body: RawBody): Buffer {
  return keyedHmac(cachedKey(secret), `${webhookId}.${unixSeconds}.`, body);
}

/** Base64 Standard Webhooks signature, i.e. what follows `v1,` in `webhook-signature`. */
export function computeStandardWebhookSignature(
  secret: string,
  webhookId: string,
  unixSeconds: number,
  body: RawBody,
): string {
  return standardWebhookDigest(secret, webhookId, unixSeconds, body).toString('base64');
}

/**
 * True if any candidate equals any expected digest. Every pair is compared with `timingSafeEqual`
 * and nothing short-circuits, so the time taken depends only on the list sizes, not on which (if any)
 * entry matched or how many leading bytes were right. Callers pass candidates already decoded to the
 * digest length; a length mismatch is still compared (against a zero buffer) and counted as a miss.
 */
export function matchesAnyDigest(candidates: readonly Buffer[], expected: readonly Buffer[]): boolean {
  let matched = 0;
  for (const digest of expected) {
    for (const candidate of candidates) {
      const sameLength = candidate.length === digest.length;
      const comparable = sameLength ? candidate : Buffer.alloc(digest.length);
      matched |= Number(timingSafeEqual(comparable, digest) && sameLength);
    }
  }
  return matched === 1;
}
