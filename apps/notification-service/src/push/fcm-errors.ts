/**
 * What to do about one failed push, from the error code firebase-admin reports
 * (`FirebaseMessagingError.code`, e.g. `messaging/registration-token-not-registered`).
 * - `remove-token`: the token will never work again; delete the device.
 * - `retry`: FCM is overloaded or failing (429, 5xx); try again later with back-off.
 * - `fail`: anything else (bad credentials, payload problems); record and move on.
 */
export type FailureAction = 'remove-token' | 'retry' | 'fail';

const REMOVE_TOKEN = new Set(['registration-token-not-registered', 'invalid-registration-token', 'invalid-recipient']);

const RETRY = new Set([
  'message-rate-exceeded', // 429 RESOURCE_EXHAUSTED / QUOTA_EXCEEDED
  'device-message-rate-exceeded',
  'too-many-requests',
  'quota-exceeded',
  'internal-error', // 500 INTERNAL
  'server-unavailable', // 503 UNAVAILABLE
  'unavailable',
]);

export function classifyFcmError(code: string | undefined, message = ''): FailureAction {
  if (!code) return 'fail';
  const bare = code.startsWith('messaging/') ? code.slice('messaging/'.length) : code;
  if (REMOVE_TOKEN.has(bare)) return 'remove-token';
  // INVALID_ARGUMENT covers both a malformed token and a malformed message; only the first is the token's fault.
  if (bare === 'invalid-argument') return /registration token|token/i.test(message) ? 'remove-token' : 'fail';
  if (RETRY.has(bare)) return 'retry';
  return 'fail';
}

/** Retry-After is seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential back-off from `baseMs`, capped, never shorter than what the server asked for. */
export function retryDelay(attemptsMade: number, baseMs: number, retryAfterMs?: number, capMs = 15 * 60_000): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.max(exponential, retryAfterMs ?? 0);
}
