import {
  HEADER_AUTHORIZATION,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_ID,
  HEADER_WEBHOOK_SIGNATURE,
  HEADER_WEBHOOK_TIMESTAMP,
  MAX_WEBHOOK_ID_LENGTH,
} from './constants.js';
import { normaliseSigningSecrets } from './secret.js';
import { assertRawBody } from './raw-body.js';
import { type KeyObject } from 'node:crypto';
import { hmacKey, keyedHmac, type RawBody } from './signature.js';
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

/** Signs requests to one endpoint; inputs are checked and keys prepared once, not per call. */
export interface RequestSigner {
  /** The five headers for one request with this body and id (same rules as {@link signRequest}). */
  sign(body: RawBody, webhookId: string, now?: Date): SignedHeaders;
}

/**
 * A signer for repeated calls to the same endpoint with the same secrets (e.g. a search that asks
 * many integrators, again and again): the method, path and secrets are validated and the HMAC keys
 * imported once. The headers are exactly those of {@link signRequest}.
 */
export function createRequestSigner(input: RequestSignerInput): RequestSigner {
  const keys: readonly KeyObject[] = normaliseSigningSecrets(input.secrets).map(hmacKey);
  const method = assertMethod(input.method).toUpperCase();
  const pathWithQuery = assertPathWithQuery(input.pathWithQuery);
  const afterTimestamp = `\n${method}\n${pathWithQuery}\n`;
  return {
    sign(rawBody, rawWebhookId, now) {
      const webhookId = assertWebhookId(rawWebhookId);
      const body = assertRawBody(rawBody);
      // One instant for both schemes, so `Timestamp` and `webhook-timestamp` always name the same second.
      const unixSeconds = toUnixSeconds(now ?? new Date());
      const timestamp = formatUnixSeconds(unixSeconds);
      const hmacPrefix = `${timestamp}${afterTimestamp}`;
      const standardPrefix = `${webhookId}.${unixSeconds}.`;
      let authorization = '';
      let signature = '';
      for (const key of keys) {
        const hmac = `hmac ${keyedHmac(key, hmacPrefix, body).toString('hex')}`;
        const standard = `v1,${keyedHmac(key, standardPrefix, body).toString('base64')}`;
        authorization = authorization === '' ? hmac : `${authorization}, ${hmac}`;
        signature = signature === '' ? standard : `${signature} ${standard}`;
      }
      return {
        [HEADER_TIMESTAMP]: timestamp,
        [HEADER_AUTHORIZATION]: authorization,
        [HEADER_WEBHOOK_ID]: webhookId,
        [HEADER_WEBHOOK_TIMESTAMP]: String(unixSeconds),
        [HEADER_WEBHOOK_SIGNATURE]: signature,
      };
    },
  };
}

/**
 * Signs one outgoing request with both schemes at the same instant. Throws a TypeError for invalid
 * input: everything here comes from our own code and configuration, so a bad value is a bug.
 */
export function signRequest(input: SignRequestInput): SignedHeaders {
  return createRequestSigner(input).sign(input.body, input.webhookId, input.now);
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
