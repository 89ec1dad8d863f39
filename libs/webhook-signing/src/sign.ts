import {
  HEADER_AUTHORIZATION,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_ID,
  HEADER_WEBHOOK_KEY_ID,
  HEADER_WEBHOOK_SIGNATURE,
  HEADER_WEBHOOK_TIMESTAMP,
  MAX_WEBHOOK_ID_LENGTH,
} from './constants.js';
import { normaliseSigningSecrets } from './secret.js';
import { assertRawBody } from './raw-body.js';
import { type KeyObject } from 'node:crypto';
import { assertEd25519, assertKeyId, computeV1aSignature, type SigningKey } from './ed25519.js';
import { DEFAULT_SIGNATURE_SCHEMES, needsSecret, parseSignatureSchemes, type SignatureScheme } from './schemes.js';
import { cachedKey, keyedHmac, type RawBody } from './signature.js';
import { formatUnixSeconds, toUnixSeconds } from './timestamp.js';

export interface SignRequestInput {
  /** One secret, or two (old and new) while rotating; every secret signs the request. */
  readonly secrets: readonly string[];
  /** HTTP method; signed upper-case. */
  readonly method: string;
  /** Path and query exactly as they will appear on the request line, including any base-URL path prefix. */
  readonly pathWithQuery: string;
  /** The exact bytes that will be sent; `''` when there is no body. */
  readonly body: RawBody;
  /** Stable per event and target, identical on every retry, so receivers can de-duplicate. */
  readonly webhookId: string;
  /** Signing instant; defaults to the current time. Only whole seconds are used. */
  readonly now?: Date;
}

/** The five headers to add to the outgoing request. */
export interface SignedHeaders extends Record<string, string> {
  readonly Timestamp: string;
  readonly Authorization: string;
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

// RFC 9110 `token`, the grammar of an HTTP method.
const METHOD_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Request targets are visible ASCII on the wire (anything else is percent-encoded), so signing anything
// else would produce a signature the receiver can never reproduce from its request line.
const PATH_WITH_QUERY_PATTERN = /^\/[\x21-\x7e]*$/;

/** What {@link createRequestSigner} fixes once: the secrets and the call they sign. */
export interface RequestSignerInput {
  readonly secrets: readonly string[];
  readonly method: string;
  readonly pathWithQuery: string;
}

/** The endpoint's chosen schemes, and the platform's key when they include `v1a`. */
export interface SchemeChoice {
  /**
   * The schemes to sign with (without them: `hmac` and `v1`, the five headers of {@link SignedHeaders}).
   * With `v1a`, `webhook-signature` also carries `v1a,<ed25519>` and `webhook-key-id` names the key.
   * `secrets` may be empty when no chosen scheme uses one (`v1a` alone).
   */
  readonly schemes: readonly SignatureScheme[];
  /** The platform's active ed25519 key; required when `schemes` includes `v1a`. */
  readonly signingKey?: SigningKey;
}

/**
 * Headers of a request signed with chosen schemes: `webhook-id` and `webhook-timestamp` always;
 * `Timestamp` and `Authorization` for `hmac`; `webhook-signature` for `v1` and `v1a`; `webhook-key-id` for `v1a`.
 */
export type SchemeSignedHeaders = Record<string, string>;

/** Signs requests to one endpoint; inputs are checked and keys prepared once, not per call. */
export interface RequestSigner<Headers extends Record<string, string> = SignedHeaders> {
  /** The headers for one request with this body and id (same rules as {@link signRequest}). */
  sign(body: RawBody, webhookId: string, now?: Date): Headers;
}

/**
 * A signer for repeated calls to the same endpoint with the same secrets (e.g. a search that asks
 * many integrators, again and again): the method, path, schemes and keys are validated and the HMAC
 * keys imported once. Without `schemes` the headers are exactly those of {@link signRequest}.
 */
export function createRequestSigner(input: RequestSignerInput & SchemeChoice): RequestSigner<SchemeSignedHeaders>;
export function createRequestSigner(input: RequestSignerInput): RequestSigner<SignedHeaders>;
export function createRequestSigner(input: RequestSignerInput & Partial<SchemeChoice>): RequestSigner<SchemeSignedHeaders> {
  const schemes = input.schemes === undefined ? DEFAULT_SIGNATURE_SCHEMES : parseSignatureSchemes(input.schemes);
  if (schemes === undefined) throw new TypeError('schemes must be a non-empty list of "hmac", "v1" and "v1a"');
  const withHmac = schemes.includes('hmac');
  const withV1 = schemes.includes('v1');
  const signingKey = schemes.includes('v1a') ? assertSigningKey(input.signingKey) : undefined;
  const keys: readonly KeyObject[] = needsSecret(schemes) ? normaliseSigningSecrets(input.secrets).map(cachedKey) : [];
  const method = assertMethod(input.method).toUpperCase();
  const pathWithQuery = assertPathWithQuery(input.pathWithQuery);
  const afterTimestamp = `\n${method}\n${pathWithQuery}\n`;
  return {
    sign(rawBody, rawWebhookId, now) {
      const webhookId = assertWebhookId(rawWebhookId);
      const body = assertRawBody(rawBody);
      // One instant for every scheme, so `Timestamp` and `webhook-timestamp` always name the same second.
      const unixSeconds = toUnixSeconds(now ?? new Date());
      const timestamp = formatUnixSeconds(unixSeconds);
      const hmacPrefix = `${timestamp}${afterTimestamp}`;
      const standardPrefix = `${webhookId}.${unixSeconds}.`;
      let authorization = '';
      let signature = '';
      for (const key of keys) {
        if (withHmac) {
          const hmac = `hmac ${keyedHmac(key, hmacPrefix, body).toString('hex')}`;
          authorization = authorization === '' ? hmac : `${authorization}, ${hmac}`;
        }
        if (withV1) {
          const standard = `v1,${keyedHmac(key, standardPrefix, body).toString('base64')}`;
          signature = signature === '' ? standard : `${signature} ${standard}`;
        }
      }
      if (signingKey) {
        const asymmetric = `v1a,${computeV1aSignature(signingKey.privateKey, webhookId, unixSeconds, body)}`;
        signature = signature === '' ? asymmetric : `${signature} ${asymmetric}`;
      }
      const headers: Record<string, string> = {};
      if (withHmac) {
        headers[HEADER_TIMESTAMP] = timestamp;
        headers[HEADER_AUTHORIZATION] = authorization;
      }
      headers[HEADER_WEBHOOK_ID] = webhookId;
      headers[HEADER_WEBHOOK_TIMESTAMP] = String(unixSeconds);
      if (signature !== '') headers[HEADER_WEBHOOK_SIGNATURE] = signature;
      if (signingKey) headers[HEADER_WEBHOOK_KEY_ID] = signingKey.kid;
      return headers as SchemeSignedHeaders;
    },
  };
}

/**
 * Signs one outgoing request at one instant, with `hmac` and `v1` unless `schemes` says otherwise. Throws a TypeError for invalid
 * input: everything here comes from our own code and configuration, so a bad value is a bug.
 */
export function signRequest(input: SignRequestInput & SchemeChoice): SchemeSignedHeaders;
export function signRequest(input: SignRequestInput): SignedHeaders;
export function signRequest(input: SignRequestInput & Partial<SchemeChoice>): SchemeSignedHeaders {
  return createRequestSigner(input).sign(input.body, input.webhookId, input.now);
}

function assertSigningKey(key: SigningKey | undefined): SigningKey {
  if (key === undefined) throw new TypeError('a signing key is required to sign with v1a');
  assertKeyId(key.kid);
  assertEd25519(key.privateKey, 'private');
  return key;
}

function assertMethod(method: unknown): string {
  if (typeof method !== 'string' || !METHOD_PATTERN.test(method)) {
    throw new TypeError('method must be an HTTP method token, e.g. "POST"');
  }
  return method;
}

function assertPathWithQuery(pathWithQuery: unknown): string {
  if (typeof pathWithQuery !== 'string' || !PATH_WITH_QUERY_PATTERN.test(pathWithQuery)) {
    throw new TypeError('pathWithQuery must start with "/" and contain only visible ASCII (percent-encode the rest)');
  }
  return pathWithQuery;
}

/**
 * 1 to MAX_WEBHOOK_ID_LENGTH visible ASCII characters, which keeps the id intact through header parsing
 * (no trimming, no folding, no encoding). A loop, not a regular expression: this runs for every signed call.
 */
function isWebhookId(value: string): boolean {
  if (value.length === 0 || value.length > MAX_WEBHOOK_ID_LENGTH) return false;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

function assertWebhookId(webhookId: unknown): string {
  if (typeof webhookId !== 'string' || !isWebhookId(webhookId)) {
    throw new TypeError(`webhookId must be 1-${MAX_WEBHOOK_ID_LENGTH} visible ASCII characters`);
  }
  return webhookId;
}
