import { describe, expect, it } from '@jest/globals';
import { eventually } from './service-process.js';

/** A check that answers `values` in turn, then keeps answering the last one. */
function answering<T>(...values: T[]): { check: () => T; calls: () => number } {
  let calls = 0;
  return { check: () => values[Math.min(calls++, values.length - 1)], calls: () => calls };
}

describe('eventually', () => {
  it('returns the first truthy value the check gives', async () => {
    const { check, calls } = answering<unknown>(undefined, false, { heldSince: '2026-11-23T10:00:00Z' });
    await expect(eventually(check, 5_000)).resolves.toEqual({ heldSince: '2026-11-23T10:00:00Z' });
    expect(calls()).toBe(3);
  });

  // `delivery?.heldSince && delivery` is null while nothing is held: that must not count as done.
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['false', false],
    ['0', 0],
    ['an empty string', ''],
  ])('keeps polling while the check gives %s', async (_what, notYet) => {
    const { check, calls } = answering<unknown>(notYet, notYet, 'done');
    await expect(eventually(check, 5_000)).resolves.toBe('done');
    expect(calls()).toBe(3);
  });

  it('retries a check that throws, and names what it waited for and the last error when time runs out', async () => {
    const { check } = answering<unknown>(null);
    await expect(eventually(check, 120, 'the delivery to be held')).rejects.toThrow('timed out waiting for the delivery to be held');
    const failing = () => {
      throw new Error('connection refused');
    };
    await expect(eventually(failing, 120, 'the service')).rejects.toThrow('timed out waiting for the service: connection refused');
  });
});
