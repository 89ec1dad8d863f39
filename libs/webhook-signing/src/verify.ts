import {
  DEFAULT_TOLERANCE_SECONDS,
  KEY_ID_PATTERN,
  HEADER_AUTHORIZATION,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_ID,
  HEADER_WEBHOOK_KEY_ID,
  HEADER_WEBHOOK_SIGNATURE,
  HEADER_WEBHOOK_TIMESTAMP,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_WEBHOOK_ID_LENGTH,
} from './constants.js';
import { isV1aSignatureValid, type JsonWebKeySet, KeySet } from './ed25519.js';
import { readHeader, type HeaderRead, type HeaderSource } from './headers.js';
import { assertRawBody } from './raw-body.js';
import { normaliseSecrets } from './secret.js';
import { hmacDigest, matchesAnyDigest, standardWebhookDigest, type RawBody } from './signature.js';
import { isWithinTolerance, parseTimestamp, parseUnixSeconds } from './timestamp.js';

/** `unknown_key`: a `v1a` request names a `webhook-key-id` the key set does not contain. */
export type VerifyFailureReason = 'missing_headers' | 'malformed' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'unknown_key';

export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailureReason };

interface VerifyCommonInput {
  /** The shared secret; pass several to accept any of them (e.g. while you roll your own config). */
  readonly secret: string | readonly string[];
  /** The raw body exactly as received: never re-serialised JSON. `''` when empty. */
  readonly body: RawBody;
  readonly headers: HeaderSource;
  /** Maximum clock difference in either direction. Defaults to 300 (5 minutes). */
  readonly toleranceSeconds?: number;
  /** The receiver's current time; defaults to now. */
  readonly now?: Date;
}

export interface VerifyHmacRequestInput extends VerifyCommonInput {
  readonly method: string;
  /** Path and query exactly as on the request line (`req.url` in `node:http`, `req.originalUrl` in Express). */
  readonly pathWithQuery: string;
}

export type VerifyStandardWebhookInput = VerifyCommonInput;

/** The parts of a `node:http` `IncomingMessage` (or a Fastify `request.raw`) that verification needs. */
export interface IncomingRequestLike {
  readonly method?: string;
  readonly url?: string;
  readonly headers: HeaderSource;
}

export interface VerifyRequestInput extends Omit<VerifyCommonInput, 'headers'> {
  readonly request: IncomingRequestLike;
}

const OK: VerifyResult = { ok: true };
const fail = (reason: VerifyFailureReason): VerifyResult => ({ ok: false, reason });

const AUTHORIZATION_ENTRY_PATTERN = /^hmac +([0-9a-f]{64})$/i;
// Base64 of a 32-byte digest: 43 characters and one `=` of padding.
const STANDARD_SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{43}=$/;
const STANDARD_SIGNATURE_VERSION = 'v1';
// Base64 of a 64-byte ed25519 signature: 86 characters and two `=` of padding.
const ASYMMETRIC_SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{86}==$/;
const ASYMMETRIC_SIGNATURE_VERSION = 'v1a';


/**
 * Verifies the `hmac` scheme (`Timestamp` + `Authorization`). Never throws for anything the sender
 * controls; throws a TypeError/RangeError only for programming errors (bad secret, parsed body, bad tolerance).
 */
export function verifyHmacRequest(input: VerifyHmacRequestInput): VerifyResult {
  if (typeof input.method !== 'string' || typeof input.pathWithQuery !== 'string') {
    throw new TypeError('method and pathWithQuery must be strings');
  }
  const secrets = normaliseSecrets(input.secret);
  const body = assertRawBody(input.body);
  const tolerance = resolveTolerance(input.toleranceSeconds);

  const timestampHeader = readHeader(input.headers, HEADER_TIMESTAMP, { maxLength: 64 });
  const authorizationHeader = readHeader(input.headers, HEADER_AUTHORIZATION, {
    listSeparator: ', ',
    maxLength: MAX_SIGNATURE_HEADER_LENGTH,
  });
  const headerProblem = firstHeaderProblem([timestampHeader, authorizationHeader]);
  if (headerProblem || timestampHeader.status !== 'present' || authorizationHeader.status !== 'present') {
    return fail(headerProblem ?? 'missing_headers');
  }

  const timestampSeconds = parseTimestamp(timestampHeader.value);
  const candidates = parseAuthorization(authorizationHeader.value);
  if (timestampSeconds === undefined || candidates === undefined) {
    return fail('malformed');
  }
  if (!isWithinTolerance(timestampSeconds, input.now ?? new Date(), tolerance)) {
    return fail('timestamp_out_of_tolerance');
  }

  const parts = { timestamp: timestampHeader.value, method: input.method, pathWithQuery: input.pathWithQuery, body };
  const expected = secrets.map((secret) => hmacDigest(secret, parts));
  return matchesAnyDigest(candidates, expected) ? OK : fail('signature_mismatch');
}

/**
 * Verifies the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the
 * secret's UTF-8 bytes as the key. Entries of other versions (e.g. `v1a`) are ignored, as the spec requires.
 */
export function verifyStandardWebhook(input: VerifyStandardWebhookInput): VerifyResult {
  const secrets = normaliseSecrets(input.secret);
  const body = assertRawBody(input.body);
  const tolerance = resolveTolerance(input.toleranceSeconds);

  const idHeader = readHeader(input.headers, HEADER_WEBHOOK_ID, { maxLength: MAX_WEBHOOK_ID_LENGTH });
  const timestampHeader = readHeader(input.headers, HEADER_WEBHOOK_TIMESTAMP, { maxLength: 32 });
  const signatureHeader = readHeader(input.headers, HEADER_WEBHOOK_SIGNATURE, {
    listSeparator: ' ',
    maxLength: MAX_SIGNATURE_HEADER_LENGTH,
  });
  const headerProblem = firstHeaderProblem([idHeader, timestampHeader, signatureHeader]);
  if (
    headerProblem ||
    idHeader.status !== 'present' ||
    timestampHeader.status !== 'present' ||
    signatureHeader.status !== 'present'
  ) {
    return fail(headerProblem ?? 'missing_headers');
  }

  const timestampSeconds = parseUnixSeconds(timestampHeader.value);
  const candidates = parseStandardSignatures(signatureHeader.value);
  if (timestampSeconds === undefined || candidates === undefined) {
    return fail('malformed');
  }
  if (!isWithinTolerance(timestampSeconds, input.now ?? new Date(), tolerance)) {
    return fail('timestamp_out_of_tolerance');
  }

  const expected = secrets.map((secret) => standardWebhookDigest(secret, idHeader.value, timestampSeconds, body));
  return matchesAnyDigest(candidates, expected) ? OK : fail('signature_mismatch');
}

/**
 * Convenience for receivers: verifies the `hmac` scheme straight from a `node:http` request
 * (method and `url`, i.e. the path and query from the request line). In Express pass
 * `{ method: req.method, url: req.originalUrl, headers: req.headers }`, because `req.url` loses the
 * prefix of a mounted router.
 */
export function verifyRequest(input: VerifyRequestInput): VerifyResult {
  const { request } = input;
  if (typeof request?.method !== 'string' || typeof request.url !== 'string') {
    throw new TypeError('request must carry the method and url of an incoming HTTP request');
  }
  return verifyHmacRequest({
    secret: input.secret,
    body: input.body,
    toleranceSeconds: input.toleranceSeconds,
    now: input.now,
    method: request.method,
    pathWithQuery: request.url,
    headers: request.headers,
  });
}

/** Options of {@link verifyWithKeySet}. */
export interface VerifyWithKeySetOptions {
  /** Maximum clock difference in either direction. Defaults to 300 (5 minutes). */
  readonly toleranceSeconds?: number;
  /** The receiver's current time; defaults to now. */
  readonly now?: Date;
}

// Receivers pass the same parsed JWKS document for every request: its keys are imported once.
const keySetsOfDocuments = new WeakMap<object, KeySet>();

function asKeySet(keySet: KeySet | JsonWebKeySet): KeySet {
  if (keySet instanceof KeySet) return keySet;
  let parsed = keySetsOfDocuments.get(keySet);
  if (parsed === undefined) {
    parsed = KeySet.from(keySet);
    keySetsOfDocuments.set(keySet, parsed);
  }
  return parsed;
}

/**
 * Verifies the Standard Webhooks `v1a` scheme (ed25519) against the platform's published key set:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature` (its `v1a,` entries; others are ignored) and
 * `webhook-key-id`, which picks the key. `keySet` is the parsed JWKS document (or a {@link KeySet});
 * see {@link RemoteKeySet} to fetch and cache it. Never throws for anything the sender controls.
 */
export function verifyWithKeySet(
  request: { readonly headers: HeaderSource },
  body: RawBody,
  keySet: KeySet | JsonWebKeySet,
  options: VerifyWithKeySetOptions = {},
): VerifyResult {
  const keys = asKeySet(keySet);
  const rawBody = assertRawBody(body);
  const tolerance = resolveTolerance(options.toleranceSeconds);
  const headers = request?.headers;

  const idHeader = readHeader(headers, HEADER_WEBHOOK_ID, { maxLength: MAX_WEBHOOK_ID_LENGTH });
  const timestampHeader = readHeader(headers, HEADER_WEBHOOK_TIMESTAMP, { maxLength: 32 });
  const signatureHeader = readHeader(headers, HEADER_WEBHOOK_SIGNATURE, { listSeparator: ' ', maxLength: MAX_SIGNATURE_HEADER_LENGTH });
  const keyIdHeader = readHeader(headers, HEADER_WEBHOOK_KEY_ID, { maxLength: 64 });
  const headerProblem = firstHeaderProblem([idHeader, timestampHeader, signatureHeader, keyIdHeader]);
  if (
    headerProblem ||
    idHeader.status !== 'present' ||
    timestampHeader.status !== 'present' ||
    signatureHeader.status !== 'present' ||
    keyIdHeader.status !== 'present'
  ) {
    return fail(headerProblem ?? 'missing_headers');
  }

  const timestampSeconds = parseUnixSeconds(timestampHeader.value);
  const candidates = parseSignatureEntries(signatureHeader.value, ASYMMETRIC_SIGNATURE_VERSION, ASYMMETRIC_SIGNATURE_PATTERN);
  if (timestampSeconds === undefined || candidates === undefined || !KEY_ID_PATTERN.test(keyIdHeader.value)) {
    return fail('malformed');
  }
  if (!isWithinTolerance(timestampSeconds, options.now ?? new Date(), tolerance)) {
    return fail('timestamp_out_of_tolerance');
  }
  const publicKey = keys.get(keyIdHeader.value);
  if (publicKey === undefined) {
    return fail('unknown_key');
  }
  let valid = false;
  for (const candidate of candidates) {
    // Public-key verification leaks nothing worth timing, so every entry is simply checked.
    if (isV1aSignatureValid(publicKey, idHeader.value, timestampSeconds, rawBody, candidate)) valid = true;
  }
  return valid ? OK : fail('signature_mismatch');
}

/** `missing_headers` wins over `malformed`: a request lacking a header is unsigned, not garbled. */
function firstHeaderProblem(reads: readonly HeaderRead[]): VerifyFailureReason | undefined {
  if (reads.some((read) => read.status === 'missing')) {
    return 'missing_headers';
  }
  if (reads.some((read) => read.status === 'malformed')) {
    return 'malformed';
  }
  return undefined;
}

/** `hmac <hex>[, hmac <hex>]…` → the decoded digests, or `undefined` if any entry is not well formed. */
function parseAuthorization(value: string): Buffer[] | undefined {
  const digests: Buffer[] = [];
  for (const entry of value.split(',')) {
    const match = AUTHORIZATION_ENTRY_PATTERN.exec(entry.trim());
    if (!match) {
      return undefined;
    }
    digests.push(Buffer.from(match[1], 'hex'));
  }
  return digests;
}

/**
 * `v1,<base64> [v1,<base64>]…` → the decoded `v1` digests, or `undefined` if an entry is garbled.
 * An empty list (only other versions present) is valid and simply cannot match.
 */
function parseStandardSignatures(value: string): Buffer[] | undefined {
  return parseSignatureEntries(value, STANDARD_SIGNATURE_VERSION, STANDARD_SIGNATURE_PATTERN);
}

/** The decoded `version` entries of a `webhook-signature` list, or `undefined` if an entry is garbled. */
function parseSignatureEntries(value: string, version: string, pattern: RegExp): Buffer[] | undefined {
  const digests: Buffer[] = [];
  for (const entry of value.split(' ')) {
    if (entry === '') {
      continue;
    }
    const comma = entry.indexOf(',');
    if (comma <= 0) {
      return undefined;
    }
    if (entry.slice(0, comma) !== version) {
      continue;
    }
    const signature = entry.slice(comma + 1);
    if (!pattern.test(signature)) {
      return undefined;
    }
    digests.push(Buffer.from(signature, 'base64'));
  }
  return digests;
}

function resolveTolerance(toleranceSeconds: number | undefined): number {
  const tolerance = toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a finite, non-negative number');
  }
  return tolerance;
}
