import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type BackoffSchedule, backoffCeiling, backoffDelay } from './backoff.js';
import { classifyResponse, type Verdict } from './classify.js';
import { type RetryPolicy, stepAfterAttempt } from './retry-policy.js';

const HOUR = 3_600_000;
const POLICY: RetryPolicy = {
  schedule: { baseMs: 10_000, factor: 2, capMs: 2 * HOUR },
  maxAttempts: 30,
  clientErrorMaxAttempts: 3,
  retryAfterMaxMs: 6 * HOUR,
};

/** Schedules the configuration allows with a growing back-off (factor above 1). */
const schedules: fc.Arbitrary<BackoffSchedule> = fc.record({
  baseMs: fc.integer({ min: 1, max: 600_000 }),
  factor: fc.double({ min: 1.1, max: 10, noNaN: true }),
  capMs: fc.integer({ min: 1, max: 48 * HOUR }),
});
/** What Math.random may return: [0, 1). */
const randoms = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

const retry = (retryAfterMs?: number, countsAsEndpointFailure = true): Verdict => ({ kind: 'retry', retryAfterMs, countsAsEndpointFailure });

describe('back-off growth', () => {
  it('the first retry’s ceiling is the base (or the cap, if lower)', () => {
    fc.assert(fc.property(schedules, (schedule) => backoffCeiling(1, schedule) === Math.min(schedule.baseMs, schedule.capMs)));
  });

  it('each retry’s ceiling is strictly above the one before until it reaches the cap, and then stays at the cap', () => {
    fc.assert(
      fc.property(schedules, fc.integer({ min: 1, max: 60 }), (schedule, retry) => {
        const before = backoffCeiling(retry, schedule);
        const after = backoffCeiling(retry + 1, schedule);
        expect(after).toBeLessThanOrEqual(schedule.capMs);
        if (before < schedule.capMs) expect(after).toBeGreaterThan(before);
        else expect(after).toBe(schedule.capMs);
      }),
    );
  });

  it('grows by the factor below the cap', () => {
    fc.assert(
      fc.property(schedules, fc.integer({ min: 1, max: 20 }), (schedule, retry) => {
        const after = backoffCeiling(retry + 1, schedule);
        if (after < schedule.capMs) expect(after / backoffCeiling(retry, schedule)).toBeCloseTo(schedule.factor, 6);
      }),
    );
  });

  it('a delay is full jitter: a whole number of ms from 0 to the ceiling, and grows with the random draw', () => {
    fc.assert(
      fc.property(schedules, fc.integer({ min: 1, max: 40 }), randoms, randoms, (schedule, retry, r1, r2) => {
        const ceiling = backoffCeiling(retry, schedule);
        const delay = backoffDelay(retry, schedule, () => r1);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.round(ceiling));
        expect(Math.abs(delay - r1 * ceiling)).toBeLessThanOrEqual(0.5);
        const [low, high] = r1 <= r2 ? [r1, r2] : [r2, r1];
        expect(backoffDelay(retry, schedule, () => low)).toBeLessThanOrEqual(backoffDelay(retry, schedule, () => high));
      }),
    );
  });

  it('the same draw waits longer on each later retry until the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((attempt) => stepAfterAttempt(retry(), attempt, POLICY, () => 0.5));
    expect(delays.map((step) => (step.status === 'failed' ? step.retryInMs : NaN))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000, 3_600_000, 3_600_000,
    ]);
  });
});

describe('stepAfterAttempt', () => {
  it('is done on success, and dead on 410 or a forbidden address, whatever the attempt', () => {
    for (const attempt of [1, 2, 29, 30]) {
      expect(stepAfterAttempt({ kind: 'success' }, attempt, POLICY)).toEqual({ status: 'succeeded' });
      expect(stepAfterAttempt({ kind: 'disable' }, attempt, POLICY)).toEqual({ status: 'dead' });
      expect(stepAfterAttempt({ kind: 'forbidden' }, attempt, POLICY)).toEqual({ status: 'dead' });
    }
  });

  it('retries a retryable failure with back-off until the last attempt, which is dead', () => {
    expect(stepAfterAttempt(retry(), 1, POLICY, () => 0.999)).toEqual({ status: 'failed', retryInMs: 9_990 });
    expect(stepAfterAttempt(retry(), 29, POLICY, () => 0.5)).toEqual({ status: 'failed', retryInMs: HOUR });
    expect(stepAfterAttempt(retry(), 30, POLICY)).toEqual({ status: 'dead' });
    expect(stepAfterAttempt(retry(), 31, POLICY)).toEqual({ status: 'dead' });
  });

  it('retries a client error (other 4xx) a few times only, and never more than maxAttempts', () => {
    const clientError: Verdict = { kind: 'client-error' };
    expect(stepAfterAttempt(clientError, 1, POLICY, () => 0.5)).toEqual({ status: 'failed', retryInMs: 5_000 });
    expect(stepAfterAttempt(clientError, 2, POLICY, () => 0.5)).toEqual({ status: 'failed', retryInMs: 10_000 });
    expect(stepAfterAttempt(clientError, 3, POLICY)).toEqual({ status: 'dead' });
    const fewAttempts = { ...POLICY, maxAttempts: 2 };
    expect(stepAfterAttempt(clientError, 1, fewAttempts)).toMatchObject({ status: 'failed' });
    expect(stepAfterAttempt(clientError, 2, fewAttempts)).toEqual({ status: 'dead' });
  });

  describe('Retry-After', () => {
    it('is honoured exactly when it is within the maximum, instead of the back-off', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: POLICY.retryAfterMaxMs }), fc.integer({ min: 1, max: 29 }), randoms, (retryAfterMs, attempt, random) => {
          expect(stepAfterAttempt(retry(retryAfterMs), attempt, POLICY, () => random)).toEqual({ status: 'failed', retryInMs: retryAfterMs });
        }),
      );
    });

    it('is cut to the configured maximum when longer', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 48 * HOUR }), fc.integer({ min: 0, max: 400 * 24 * HOUR }), (maxMs, retryAfterMs) => {
          const step = stepAfterAttempt(retry(retryAfterMs), 1, { ...POLICY, retryAfterMaxMs: maxMs });
          expect(step).toEqual({ status: 'failed', retryInMs: Math.min(retryAfterMs, maxMs) });
        }),
      );
      expect(stepAfterAttempt(retry(6 * HOUR + 1), 1, POLICY)).toEqual({ status: 'failed', retryInMs: 6 * HOUR });
    });

    it('does not buy attempts beyond the last one', () => {
      expect(stepAfterAttempt(retry(1_000), 30, POLICY)).toEqual({ status: 'dead' });
    });

    const now = Date.parse('2026-11-23T10:00:00Z');
    const after = (status: number, retryAfter: string) => stepAfterAttempt(classifyResponse(status, { 'retry-after': retryAfter }, now), 1, POLICY, () => 0.5);

    it('reads seconds and HTTP-dates from a 429 or 503, each capped at the maximum', () => {
      expect(after(429, '120')).toEqual({ status: 'failed', retryInMs: 120_000 });
      expect(after(503, '0')).toEqual({ status: 'failed', retryInMs: 0 });
      expect(after(429, `${6 * 3600}`)).toEqual({ status: 'failed', retryInMs: 6 * HOUR });
      expect(after(429, `${6 * 3600 + 1}`)).toEqual({ status: 'failed', retryInMs: 6 * HOUR });
      expect(after(503, '86400')).toEqual({ status: 'failed', retryInMs: 6 * HOUR });
      expect(after(429, 'Mon, 23 Nov 2026 10:02:00 GMT')).toEqual({ status: 'failed', retryInMs: 120_000 });
      expect(after(503, 'Tue, 24 Nov 2026 10:00:00 GMT')).toEqual({ status: 'failed', retryInMs: 6 * HOUR });
      expect(after(429, 'Mon, 23 Nov 2026 09:00:00 GMT')).toEqual({ status: 'failed', retryInMs: 0 });
    });

    it('falls back to the back-off when the header is absent, not understood, or on a status that does not carry it', () => {
      expect(after(429, 'soon')).toEqual({ status: 'failed', retryInMs: 5_000 });
      expect(after(429, '')).toEqual({ status: 'failed', retryInMs: 5_000 });
      expect(after(500, '120')).toEqual({ status: 'failed', retryInMs: 5_000 });
      expect(after(502, '120')).toEqual({ status: 'failed', retryInMs: 5_000 });
      expect(after(408, '120')).toEqual({ status: 'failed', retryInMs: 5_000 });
    });
  });
});
