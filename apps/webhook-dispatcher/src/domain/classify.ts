import type { OutboundFailureKind } from '@availability/outbound-http';
import { parseRetryAfter } from './retry-after.js';

/**
 * What one attempt's outcome means for the delivery:
 * - `success`: 2xx, done.
 * - `retry`: the integrator may recover (timeout, connection error, 5xx, 408, 425, 429); try again
 *   later, after `retryAfterMs` when it said so (429/503 Retry-After).
 * - `disable`: 410 Gone: the integrator says the endpoint is gone for good; stop calling it.
 * - `client-error`: other 4xx (and 3xx: we never follow redirects). Retried a few times only, in
 *   case it was a deployment glitch on their side, then dead.
 * - `forbidden`: the URL is not allowed (SSRF policy, invalid URL): retrying cannot help.
 */
export type Verdict =
  | { kind: 'success' }
  | { kind: 'retry'; retryAfterMs?: number; countsAsEndpointFailure: boolean }
  | { kind: 'disable' }
  | { kind: 'client-error' }
  | { kind: 'forbidden' };

const RETRYABLE_4XX = new Set([408, 425, 429]);

export function classifyResponse(status: number, headers: Record<string, string | string[] | undefined>, now = Date.now()): Verdict {
  if (status >= 200 && status < 300) return { kind: 'success' };
  if (status === 410) return { kind: 'disable' };
  if (status >= 500 || RETRYABLE_4XX.has(status)) {
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(headers['retry-after'], now) : undefined;
    // A 429 means the service is up and pacing us: it must not open the circuit breaker.
    return { kind: 'retry', retryAfterMs, countsAsEndpointFailure: status !== 429 };
  }
  return { kind: 'client-error' };
}

export function classifyFailure(kind: OutboundFailureKind): Verdict {
  if (kind === 'forbidden-address' || kind === 'invalid-url') return { kind: 'forbidden' };
  return { kind: 'retry', countsAsEndpointFailure: true };
}
