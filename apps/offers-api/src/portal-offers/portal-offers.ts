import { Injectable } from '@nestjs/common';
import { isUuid } from '@availability/contracts';
import type { PortalPrincipal } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { OfferDocumentCache } from '../offers/offer-document.cache.js';
import { OffersRepository } from '../offers/offers.repository.js';
import { OffersService } from '../offers/offers.service.js';
import { ifNoneMatchMatches, portalOfferEtag } from './etag.js';
import { cursorTimestamp, encodeOfferCursor, portalOfferListQuery } from './portal-offer-query.js';
import type { PortalOffersPage } from './portal-offer.view.js';

/** The portal's answer to a read: the document, or only its tag when the caller already has it. */
export interface PortalOfferRead {
  etag: string;
  /** Absent: the caller's If-None-Match names the current document (304). */
  body?: string;
}

/**
 * A sender organisation's offers as its portal users see them, always of the organisation of the
 * caller's portal token (another organisation's offer is not found). Completing and withdrawing are
 * the sender API's own use cases, so the rules, the 409s and the events are those of `/offer`.
 */
@Injectable()
export class PortalOffers {
  /** Portal documents differ from the sender API's (status, answer times), so they have their own cache of the same kind. */
  private readonly documents = new OfferDocumentCache();

  constructor(
    private readonly offers: OffersService,
    private readonly repository: OffersRepository,
  ) {}

  async list(user: PortalPrincipal, query: Record<string, unknown>): Promise<PortalOffersPage> {
    const { status, limit, before } = portalOfferListQuery(query);
    const rows = await this.repository.portalOffers(user.organisationId, {
      status,
      // One more than the page: whether a next page exists, without an empty last page.
      limit: limit + 1,
      before: before && { createdAt: cursorTimestamp(before), id: before.id },
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      offers: page.map((row) => ({
        id: row.id,
        title: row.title,
        status: row.status,
        createdAt: row.createdAt,
        recipientCount: row.recipientCount,
        answers: { applied: row.applied, rejected: row.rejected, none: row.none },
      })),
      nextCursor: rows.length > limit ? encodeOfferCursor({ createdAtMicros: Number(last.createdAtMicros), id: last.id }) : null,
    };
  }

  /**
   * The offer with its recipients' answers. One primary-key lookup decides everything when nothing
   * changed: the tag for a 304, or the cached body of this version; PostgreSQL builds the document
   * again only after a change. Both the lookup and the cache key carry the organisation.
   */
  async read(user: PortalPrincipal, offerId: string, ifNoneMatch: string | undefined): Promise<PortalOfferRead> {
    if (!isUuid(offerId)) throw ProblemException.notFound('The offer');
    const { organisationId } = user;
    const current = await this.repository.portalOfferVersion(organisationId, offerId);
    if (!current) throw ProblemException.notFound('The offer');
    const etag = portalOfferEtag(current.version, current.historic);
    if (ifNoneMatchMatches(ifNoneMatch, etag)) return { etag };
    const cached = this.documents.get(organisationId, offerId, current.version);
    if (cached !== undefined) return { etag, body: cached };
    const document = await this.repository.portalOfferDocument(organisationId, offerId);
    if (!document) throw ProblemException.notFound('The offer');
    this.documents.set(organisationId, offerId, document);
    // Built a moment after the lookup: its own version and state name it.
    return { etag: portalOfferEtag(document.version, document.isHistoric), body: document.body };
  }

  complete(user: PortalPrincipal, offerId: string, body: unknown): Promise<void> {
    return this.offers.complete(user.organisationId, offerId, body);
  }

  withdraw(user: PortalPrincipal, offerId: string): Promise<void> {
    return this.offers.withdraw(user.organisationId, offerId);
  }
}
