/** Header names exactly as the platform sends them (receivers must look them up case-insensitively). */
export const HEADER_TIMESTAMP = 'Timestamp';
export const HEADER_AUTHORIZATION = 'Authorization';
export const HEADER_WEBHOOK_ID = 'webhook-id';
export const HEADER_WEBHOOK_TIMESTAMP = 'webhook-timestamp';
export const HEADER_WEBHOOK_SIGNATURE = 'webhook-signature';

/** Receivers reject timestamps further than this from their own clock, in either direction. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/**
 * How far in the past a call meant to be refused as stale is signed (the set-up check, the
 * conformance kit): well outside the tolerance, so a receiver that checks the timestamp at all refuses it.
 */
export const STALE_PROBE_AGE_SECONDS = DEFAULT_TOLERANCE_SECONDS * 3;

/** At most two secrets sign at once: the current one and, during rotation, its successor. */
export const MAX_SIGNING_SECRETS = 2;

/**
 * Upper bounds on attacker-controlled header values. They keep verification cost bounded:
 * anything longer is rejected as malformed before any parsing or HMAC work.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 1024;
export const MAX_WEBHOOK_ID_LENGTH = 256;

/**
 * Which key made the `v1a` (ed25519) signature: its `kid` in the published key set. Standard Webhooks'
 * `v1a,<signature>` has no slot for a key id, so it travels in a header of its own.
 */
export const HEADER_WEBHOOK_KEY_ID = 'webhook-key-id';

/** Where the signing service publishes its public keys (a JWKS document), relative to its public origin. */
export const WELL_KNOWN_KEY_SET_PATH = '/.well-known/webhook-keys.json';

/** Key ids are short visible tokens, safe in a header and a URL: letters, digits, `.`, `_`, `-`. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
