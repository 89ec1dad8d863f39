/**
 * Retry schedule of a delivery: exponential back-off with full jitter (AWS "Exponential Backoff and
 * Jitter"). The ceiling of retry n (n = 1 after the first failed attempt) is
 * `min(cap, base * factor^(n-1))`; the delay is uniform in [0, ceiling], so endpoints that fail
 * together do not get their retries back together.
 */
export interface BackoffSchedule {
  baseMs: number;
  factor: number;
  capMs: number;
}

export function backoffCeiling(retry: number, schedule: BackoffSchedule): number {
  const exponent = Math.max(0, retry - 1);
  return Math.min(schedule.capMs, schedule.baseMs * schedule.factor ** exponent);
}

/** Delay before retry `retry` (1-based). `random` is injectable for tests. */
export function backoffDelay(retry: number, schedule: BackoffSchedule, random: () => number = Math.random): number {
  return Math.round(random() * backoffCeiling(retry, schedule));
}

/** Worst case and expected total time from the first attempt to the last one, for docs and tests. */
export function scheduleSpan(maxAttempts: number, schedule: BackoffSchedule): { worstMs: number; expectedMs: number } {
  let worstMs = 0;
  for (let retry = 1; retry < maxAttempts; retry++) worstMs += backoffCeiling(retry, schedule);
  return { worstMs, expectedMs: worstMs / 2 };
}

/**
 * A wait before a job looks at its endpoint again (circuit open, endpoint stalled), plus up to as much
 * again (at most 5 s) of jitter, so the jobs held back together do not all come back together.
 */
export function holdWithJitter(waitMs: number, random: () => number = Math.random): number {
  return Math.round(waitMs + random() * Math.min(waitMs, 5_000));
}
