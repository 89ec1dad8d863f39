import type { OutboundFailureKind } from '@availability/outbound-http';
import { parseRetryAfter } from '../push/fcm-errors.js';
import type { FailureAction } from '../push/fcm-errors.js';
import type { PushResult } from '../push/push-transport.js';

/** Error codes of the Web Push channel all start with this, so the push job knows whose rules apply. */
export const WEB_PUSH_ERROR_PREFIX = 'web-push/';

/**
 * A push service's answer (RFC 8030) as a push result. 2xx (201 Created) is delivered; the message id
 * is the push service's Location, when given. Errors become `web-push/<status>`.
 */
export function webPushResult(status: number, headers: Record<string, string | string[] | undefined>, body: string, now = Date.now()): PushResult {
  if (status >= 200 && status < 300) {
    const location = first(headers.location);
    return { success: true, messageId: location ? location.slice(0, 500) : `web-push/${status}` };
  }
  const retryAfterMs = status === 429 || status >= 500 ? parseRetryAfter(first(headers['retry-after']), now) : undefined;
  return { success: false, errorCode: `${WEB_PUSH_ERROR_PREFIX}${status}`, errorMessage: body.slice(0, 200) || `HTTP ${status}`, retryAfterMs };
}

/**
 * A request that got no answer (outbound client's failure kinds) or was never sent (`encryption`, or
 * `endpoint-not-allowed`: the endpoint breaks the subscription rules) as a push result.
 */
export function webPushFailure(kind: OutboundFailureKind | 'encryption' | 'endpoint-not-allowed', message: string): PushResult {
  return { success: false, errorCode: `${WEB_PUSH_ERROR_PREFIX}${kind}`, errorMessage: message.slice(0, 200) };
}

/**
 * What to do about one failed Web Push, by its code:
 * - 404 and 410: the subscription expired or was unsubscribed (RFC 8030 7.3): delete it, as FCM's
 *   unregistered tokens are deleted. So is an endpoint that resolves to an address the platform may
 *   not call (private, loopback, reserved) or is no URL: it never was a push service.
 * - 429, 5xx, timeouts, connections that fail, DNS, TLS and broken answers: the push service is busy
 *   or away; retry with back-off.
 * - anything else (400, 401/403 — our VAPID key refused, 413 — payload too large): record and move on.
 *   A 403 is never a reason to delete: a wrong VAPID key would otherwise empty every subscription.
 *   Nor is an endpoint the subscription rules now refuse (`endpoint-not-allowed`, kept from before
 *   they or the allow-list changed): it is not called, and an allow-list put right serves it again.
 */
export function classifyWebPushError(code: string | undefined): FailureAction {
  if (!code?.startsWith(WEB_PUSH_ERROR_PREFIX)) return 'fail';
  const reason = code.slice(WEB_PUSH_ERROR_PREFIX.length);
  if (reason === '404' || reason === '410' || reason === 'forbidden-address' || reason === 'invalid-url') return 'remove-token';
  if (reason === '429' || /^5\d\d$/.test(reason)) return 'retry';
  if (reason === 'timeout' || reason === 'unreachable' || reason === 'dns' || reason === 'tls' || reason === 'invalid-answer') return 'retry';
  return 'fail';
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
