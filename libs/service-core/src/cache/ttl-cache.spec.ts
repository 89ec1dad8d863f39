import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('expires entries and evicts the oldest beyond its bound', () => {
    let now = 0;
    const cache = new TtlCache<string, number>(2, () => now);
    cache.set('a', 1, 100);
    cache.set('b', 2, 1000);
    now = 150;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    cache.set('c', 3, 1000);
    cache.set('d', 4, 1000);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('d')).toBe(4);
  });
});
