/** The settings that say when an e-mail's job is taken to be lost. */
export interface EmailRecoveryTimes {
  /** How long an e-mail's job may make no progress (beyond its longest back-off) before it is taken to be lost. */
  recoverAfterMs: number;
  /** EMAIL_BACKOFF_MS and EMAIL_ATTEMPTS: the job's back-off doubles from the first, between its attempts. */
  backoffMs: number;
  attempts: number;
}

/** The longest wait between two attempts of an e-mail job (BullMQ's exponential back-off, last retry). */
export function longestEmailBackoffMs(times: EmailRecoveryTimes): number {
  return Math.min(Number.MAX_SAFE_INTEGER, times.backoffMs * 2 ** Math.max(0, times.attempts - 2));
}

/**
 * A pending e-mail whose job made no progress (was not due, began no attempt, was not queued again)
 * since this moment is taken to be lost: no attempt and back-off of a live job is that long. (With
 * back-offs longer than the clock's age, never.)
 */
export function emailStalledBefore(now: number, times: EmailRecoveryTimes): Date {
  return new Date(Math.max(0, now - times.recoverAfterMs - longestEmailBackoffMs(times)));
}

/**
 * What an e-mail's job id is followed by when it is queued again: one per period of `recoverAfterMs`,
 * so the sweeps of several instances in one period queue one job.
 */
export function emailRecoverySuffix(now: number, recoverAfterMs: number): string {
  return `.r${Math.floor(now / recoverAfterMs)}`;
}
