import { describe, expect, it } from '@jest/globals';
import { OfferDocumentCache } from './offer-document.cache.js';

const OFFER = '6f1c2b1e-1111-4222-8333-944445555666';
const OWNER = 'org-owner';
const RIVAL = 'org-rival';
const NOW = Date.parse('2026-11-23T10:00:00Z');
const LATER = new Date(NOW + 3_600_000);

describe('OfferDocumentCache', () => {
  it('serves a body only to the organisation it was built for, whatever the version', () => {
    const cache = new OfferDocumentCache();
    cache.set(OWNER, OFFER, { version: 3, body: '{"owner":true}', endsAt: LATER, isHistoric: false });
    expect(cache.get(OWNER, OFFER, 3, NOW)).toBe('{"owner":true}');
    expect(cache.get(RIVAL, OFFER, 3, NOW)).toBeUndefined();
  });

  it('keeps each organisation’s entry apart', () => {
    const cache = new OfferDocumentCache();
    cache.set(OWNER, OFFER, { version: 1, body: 'owner', endsAt: LATER, isHistoric: true });
    cache.set(RIVAL, OFFER, { version: 1, body: 'rival', endsAt: LATER, isHistoric: true });
    expect(cache.get(OWNER, OFFER, 1, NOW)).toBe('owner');
    expect(cache.get(RIVAL, OFFER, 1, NOW)).toBe('rival');
  });

  it('is valid only for the version it was built from', () => {
    const cache = new OfferDocumentCache();
    cache.set(OWNER, OFFER, { version: 3, body: 'v3', endsAt: LATER, isHistoric: false });
    expect(cache.get(OWNER, OFFER, 4, NOW)).toBeUndefined();
    expect(cache.get(OWNER, OFFER, 2, NOW)).toBeUndefined();
  });

  it('goes stale when the offer’s last slot ends (isHistoric turns true by time), unless already historic', () => {
    const cache = new OfferDocumentCache();
    cache.set(OWNER, OFFER, { version: 1, body: 'open', endsAt: LATER, isHistoric: false });
    expect(cache.get(OWNER, OFFER, 1, LATER.getTime() - 1)).toBe('open');
    expect(cache.get(OWNER, OFFER, 1, LATER.getTime())).toBeUndefined();
    cache.set(OWNER, OFFER, { version: 2, body: 'closed', endsAt: new Date(NOW - 1_000), isHistoric: true });
    expect(cache.get(OWNER, OFFER, 2, LATER.getTime() + 1_000)).toBe('closed');
  });

  it('does not keep bodies over 64 KiB', () => {
    const cache = new OfferDocumentCache();
    const big = 'x'.repeat(64 * 1024 + 1);
    cache.set(OWNER, OFFER, { version: 1, body: big, endsAt: LATER, isHistoric: true });
    expect(cache.get(OWNER, OFFER, 1, NOW)).toBeUndefined();
    cache.set(OWNER, OFFER, { version: 1, body: big.slice(1), endsAt: LATER, isHistoric: true });
    expect(cache.get(OWNER, OFFER, 1, NOW)).toBe(big.slice(1));
  });
});
