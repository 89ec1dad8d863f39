import { describe, expect, it } from '@jest/globals';
import { ifNoneMatchMatches, portalOfferEtag } from './etag.js';

describe('portal offer entity tags', () => {
  it('change with the version and when the offer turns historic', () => {
    expect(portalOfferEtag(3, false)).toBe('"p3.0"');
    expect(new Set([portalOfferEtag(3, false), portalOfferEtag(4, false), portalOfferEtag(3, true)]).size).toBe(3);
  });

  it('If-None-Match matches the current tag, weakly, in a list, or as *', () => {
    const tag = portalOfferEtag(7, false);
    expect(ifNoneMatchMatches(tag, tag)).toBe(true);
    expect(ifNoneMatchMatches(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatchMatches(`"p1.0", ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchMatches(`"p1.0",${tag} `, tag)).toBe(true);
    expect(ifNoneMatchMatches('*', tag)).toBe(true);
  });

  it('anything else does not match', () => {
    const tag = portalOfferEtag(7, false);
    for (const header of [undefined, '', '"p6.0"', '"p7.1"', 'p7.0', '"p7.0', 'W/"p70"', `${tag}x`, '**', 'W/*']) {
      expect([header, ifNoneMatchMatches(header, tag)]).toEqual([header, false]);
    }
  });
});
