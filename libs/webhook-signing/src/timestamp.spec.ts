import { describe, expect, it } from '@jest/globals';
import { formatTimestamp, parseTimestamp, parseUnixSeconds, toUnixSeconds } from './index.js';

describe('formatTimestamp', () => {
  it('formats UTC with whole seconds and a Z suffix', () => {
    expect(formatTimestamp(new Date('2026-11-22T10:55:03Z'))).toBe('2026-11-22T10:55:03Z');
  });

  it('truncates (never rounds up) sub-second precision', () => {
    expect(formatTimestamp(new Date('2026-11-22T10:55:03.999Z'))).toBe('2026-11-22T10:55:03Z');
  });

  it('converts from other time zones to UTC', () => {
    expect(formatTimestamp(new Date('2026-11-22T12:55:03+02:00'))).toBe('2026-11-22T10:55:03Z');
  });

  it('throws on an invalid date', () => {
    expect(() => formatTimestamp(new Date('nope'))).toThrow(RangeError);
  });
});

describe('parseTimestamp', () => {
  it('returns unix seconds for the exact format', () => {
    expect(parseTimestamp('2026-11-22T10:55:03Z')).toBe(1795344903);
  });

  it.each([
    '2026-11-22T10:55:03.000Z',
    '2026-11-22T10:55:03+00:00',
    '2026-11-22 10:55:03Z',
    '2026-11-22T10:55:03',
    '2026-02-30T10:55:03Z',
    '2026-11-22T24:00:00Z',
    ' 2026-11-22T10:55:03Z',
    '1795344903',
    '',
  ])('rejects %p', (value) => {
    expect(parseTimestamp(value)).toBeUndefined();
  });
});

describe('parseUnixSeconds', () => {
  it('accepts plain decimals and rejects anything else', () => {
    expect(parseUnixSeconds('1795344903')).toBe(1795344903);
    expect(parseUnixSeconds('1795344903.5')).toBeUndefined();
    expect(parseUnixSeconds('-1')).toBeUndefined();
    expect(parseUnixSeconds('1e9')).toBeUndefined();
    expect(parseUnixSeconds('0x6B05F527')).toBeUndefined();
    expect(parseUnixSeconds('9'.repeat(13))).toBeUndefined();
  });
});

describe('toUnixSeconds', () => {
  it('floors to whole seconds', () => {
    expect(toUnixSeconds(new Date(1795344903999))).toBe(1795344903);
  });
});
