import { type BackoffSchedule, backoffDelay } from './backoff.js';
import type { Verdict } from './classify.js';

export interface RetryPolicy {
  schedule: BackoffSchedule;
  /** Attempts per delivery series. */
  maxAttempts: number;
  /** Attempts for a `client-error` verdict (other 4xx, 3xx), never more than maxAttempts. */
  clientErrorMaxAttempts: number;
  /** Longest Retry-After honoured; a longer one is cut to this. */
  retryAfterMaxMs: number;
}

/** What a delivery becomes after one attempt: done, dead, or failed with the delay before its next attempt. */
export type AttemptStep = { status: 'succeeded' } | { status: 'dead' } | { status: 'failed'; retryInMs: number };

/**
 * The decision after attempt `attemptNo` (1-based, within the series) given its verdict: a retryable
 * failure waits for the integrator's Retry-After (at most `retryAfterMaxMs`) or else for the back-off,
 * until the attempts run out.
 */
export function stepAfterAttempt(verdict: Verdict, attemptNo: number, policy: RetryPolicy, random: () => number = Math.random): AttemptStep {
  switch (verdict.kind) {
    case 'success':
      return { status: 'succeeded' };
    case 'disable':
    case 'forbidden':
      return { status: 'dead' };
    case 'client-error':
      if (attemptNo >= Math.min(policy.maxAttempts, policy.clientErrorMaxAttempts)) return { status: 'dead' };
      return { status: 'failed', retryInMs: backoffDelay(attemptNo, policy.schedule, random) };
    case 'retry':
      if (attemptNo >= policy.maxAttempts) return { status: 'dead' };
      return {
        status: 'failed',
        retryInMs:
          verdict.retryAfterMs !== undefined ? Math.min(verdict.retryAfterMs, policy.retryAfterMaxMs) : backoffDelay(attemptNo, policy.schedule, random),
      };
  }
}
