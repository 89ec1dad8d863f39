import { randomBytes, randomUUID } from 'node:crypto';
import { hashToken } from '@availability/auth';

/** An organisation's API key: `apk_` + 32 random bytes, base64url. */
export const API_KEY_PREFIX = 'apk_';
/** A worker's token for the worker app: `wkt_` + 32 random bytes, base64url. */
export const WORKER_TOKEN_PREFIX = 'wkt_';

/** A portal user's sign-in token: `put_` + 32 random bytes, base64url. */
export const PORTAL_USER_TOKEN_PREFIX = 'put_';
const RANDOM_BYTES = 32;
/** How much of a key is kept in clear (`key_prefix`) so an operator can tell keys apart. */
export const VISIBLE_PREFIX_LENGTH = 12;

const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** The one hashing every service uses for credentials (stored, cached and sent over NATS). */
export { hashToken };

/** True for a well-formed token hash (64 lowercase hex characters). */
export function isTokenHash(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_HASH.test(value);
}

/** A freshly issued credential. `token` is shown once, to whoever asked for it, and never stored or logged. */
export interface IssuedCredential {
  id: string;
  token: string;
  tokenHash: string;
  /** The first characters of the token, for telling credentials apart in listings. */
  visiblePrefix: string;
}

function issue(prefix: string): IssuedCredential {
  const token = `${prefix}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
  return { id: randomUUID(), token, tokenHash: hashToken(token), visiblePrefix: token.slice(0, VISIBLE_PREFIX_LENGTH) };
}

export function issueApiKey(): IssuedCredential {
  return issue(API_KEY_PREFIX);
}

export function issueWorkerToken(): IssuedCredential {
  return issue(WORKER_TOKEN_PREFIX);
}

export function issuePortalUserToken(): IssuedCredential {
  return issue(PORTAL_USER_TOKEN_PREFIX);
}
