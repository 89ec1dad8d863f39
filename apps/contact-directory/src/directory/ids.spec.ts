import { describe, expect, it } from '@jest/globals';
import { isUuid } from '@availability/contracts';
import { isCanonicalUuid } from './ids.js';

describe('ids', () => {
  const id = '7b1d6a52-3c4e-4f10-9a55-0d6c2f9e8a01';

  it('accepts uuids in either case for URLs, only lowercase as canonical', () => {
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
    expect(isCanonicalUuid(id)).toBe(true);
    expect(isCanonicalUuid(id.toUpperCase())).toBe(false);
  });

  it.each(['', 'not-a-uuid', `${id}0`, id.slice(1), `{${id}}`, id.replace(/-/g, ''), "1' OR '1'='1"])('rejects %p', (value) => {
    expect(isUuid(value)).toBe(false);
    expect(isCanonicalUuid(value)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(isUuid(undefined)).toBe(false);
    expect(isUuid(42)).toBe(false);
    expect(isCanonicalUuid(null)).toBe(false);
  });
});
