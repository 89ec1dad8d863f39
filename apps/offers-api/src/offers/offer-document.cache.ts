import { TtlCache } from '@availability/service-core';

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
 * GET /offer/{id} bodies by offer, valid only for the offer version they were built from. A reader
 * asks PostgreSQL for the current version (a primary-key lookup) and reuses the body when it
 * matches, so every instance always serves the latest state without rebuilding the JSON each time.
 */
export class OfferDocumentCache {
  private readonly documents = new TtlCache<string, CachedDocument>(10_000);

  get(offerId: string, version: number, now = Date.now()): string | undefined {
    const cached = this.documents.get(offerId);
    if (!cached || cached.version !== version) return undefined;
    if (cached.staleAt !== null && now >= cached.staleAt) return undefined;
    return cached.body;
  }

  set(offerId: string, version: number, body: string, endsAt: Date, isHistoric: boolean): void {
    if (body.length > MAX_CACHED_BYTES) return;
    this.documents.set(offerId, { version, body, staleAt: isHistoric ? null : endsAt.getTime() }, TTL_MS);
  }
}
