import { TtlCache } from '@availability/service-core';
import type { OfferDocument } from './offers.repository.js';

interface CachedDocument {
  version: number;
  body: string;
  /** When the cached body's `isHistoric: false` turns false-by-time (the last slot ends); null if already historic. */
  staleAt: number | null;
}

/** Bodies larger than this are not cached (an offer to thousands of workers is read rarely and is big). */
const MAX_CACHED_BYTES = 64 * 1024;
const TTL_MS = 5 * 60_000;

/**
 * GET /offer/{id} bodies by organisation and offer, valid only for the offer version they were built
 * from. A reader asks PostgreSQL for the current version (a primary-key lookup) and reuses the body
 * when it matches, so every instance always serves the latest state without rebuilding the JSON each
 * time. The organisation is part of the key so that a body is only ever served to the organisation
 * it was built for, even if a version lookup were to find another organisation's offer.
 */
export class OfferDocumentCache {
  private readonly documents = new TtlCache<string, CachedDocument>(10_000);

  get(organisationId: string, offerId: string, version: number, now = Date.now()): string | undefined {
    const cached = this.documents.get(keyOf(organisationId, offerId));
    if (!cached || cached.version !== version) return undefined;
    if (cached.staleAt !== null && now >= cached.staleAt) return undefined;
    return cached.body;
  }

  set(organisationId: string, offerId: string, document: OfferDocument): void {
    if (document.body.length > MAX_CACHED_BYTES) return;
    const staleAt = document.isHistoric ? null : document.endsAt.getTime();
    this.documents.set(keyOf(organisationId, offerId), { version: document.version, body: document.body, staleAt }, TTL_MS);
  }
}

/** Organisation ids never contain a newline, so no two (organisation, offer) pairs share a key. */
function keyOf(organisationId: string, offerId: string): string {
  return `${organisationId}\n${offerId}`;
}
