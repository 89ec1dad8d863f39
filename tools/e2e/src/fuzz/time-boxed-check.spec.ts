import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RUNS_WHEN_OUT_OF_TIME, timeBoxedCheck } from './time-boxed-check.js';

describe('timeBoxedCheck', () => {
  it('does not fail an operation whose share ended before its first request was answered, and still tries it', async () => {
    let runs = 0;
    const slow = fc.asyncProperty(fc.integer(), async () => {
      runs += 1;
      await sleep(30);
    });
    const details = await timeBoxedCheck(slow, { seed: 1, numRuns: 100, timeLimitMs: 1 });
    expect(details.failed).toBe(false);
    expect(runs).toBeGreaterThanOrEqual(RUNS_WHEN_OUT_OF_TIME);
  });

  it('still reports a real failure with its shrunk counterexample', async () => {
    const failing = fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (n) => {
      await sleep(1);
      if (n >= 10) throw new Error('too big');
    });
    const details = await timeBoxedCheck(failing, { seed: 1, numRuns: 100, timeLimitMs: 10_000 });
    expect(details.failed).toBe(true);
    expect(details.counterexample).toEqual([10]);
  });
});
