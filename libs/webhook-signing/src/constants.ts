/** Header names exactly as the platform sends them (receivers must look them up case-insensitively). */
export const HEADER_TIMESTAMP = 'Timestamp';
export const HEADER_AUTHORIZATION = 'Authorization';
export const HEADER_WEBHOOK_ID = 'webhook-id';
export const HEADER_WEBHOOK_TIMESTAMP = 'webhook-timestamp';
export const HEADER_WEBHOOK_SIGNATURE = 'webhook-signature';

/** Receivers reject timestamps further than this from their own clock, in either direction. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** At most two secrets sign at once: the current one and, during rotation, its successor. */
export const MAX_SIGNING_SECRETS = 2;

/**
 * Upper bounds on attacker-controlled header values. They keep verification cost bounded:
 * anything longer is rejected as malformed before any parsing or HMAC work.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 1024;
export const MAX_WEBHOOK_ID_LENGTH = 256;
