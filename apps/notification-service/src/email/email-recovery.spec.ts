import { describe, expect, it } from '@jest/globals';
import { emailRecoverySuffix, emailStalledBefore, longestEmailBackoffMs } from './email-recovery.js';

const now = Date.parse('2030-01-01T12:00:00Z');

describe('e-mail recovery', () => {
  it("waits the job's longest back-off on top of recoverAfter", () => {
    const times = { recoverAfterMs: 300_000, backoffMs: 2_000, attempts: 10 };
    expect(longestEmailBackoffMs(times)).toBe(512_000);
    expect(emailStalledBefore(now, times).getTime()).toBe(now - 300_000 - 512_000);
    expect(longestEmailBackoffMs({ ...times, attempts: 1 })).toBe(2_000);
    expect(longestEmailBackoffMs({ ...times, attempts: 2 })).toBe(2_000);
    expect(longestEmailBackoffMs({ ...times, attempts: 3 })).toBe(4_000);
    expect(emailStalledBefore(now, { ...times, attempts: 50 }).getTime()).toBe(0);
  });

  it('names one job per e-mail and period', () => {
    expect(emailRecoverySuffix(now, 300_000)).toBe(`.r${Math.floor(now / 300_000)}`);
    expect(emailRecoverySuffix(now + 1, 300_000)).toBe(emailRecoverySuffix(now, 300_000));
    expect(emailRecoverySuffix(now + 300_000, 300_000)).not.toBe(emailRecoverySuffix(now, 300_000));
  });
});
