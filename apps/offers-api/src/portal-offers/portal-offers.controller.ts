import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { OfferLimits } from '@availability/contracts';
import { CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '@availability/auth';
import { API_VERSION_QUERY } from '../offers/offers.controller.js';
import { PORTAL_OFFER_STATUSES, PORTAL_OFFERS_DEFAULT_PAGE, PORTAL_OFFERS_MAX_PAGE } from './portal-offer-query.js';
import { PortalOffersPage, PortalOfferView } from './portal-offer.view.js';
import { PortalOffers } from './portal-offers.js';

const NOT_FOUND = 'No such offer in your organisation (another organisation’s offers are not found either)';
const ETAG_HEADER = { ETag: { schema: { type: 'string' }, description: 'The document’s version; send it back as If-None-Match' } };

/**
 * The portal's Offers pages: a sender organisation's offers, each recipient's answer as it arrives,
 * and completing or withdrawing, for any portal user of the organisation (docs/offers-api.md).
 * The organisation is the portal token's; the work is the sender API's (PortalOffers).
 */
@ApiTags('portal: offers')
@ApiBearerAuth('portal')
@ApiQuery(API_VERSION_QUERY)
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token (API keys and worker tokens are not accepted)' })
@Controller('portal/offers')
@UseGuards(PortalUserGuard)
export class PortalOffersController {
  constructor(private readonly offers: PortalOffers) {}

  @Get()
  @ApiOperation({ summary: 'Your organisation’s offers, newest first, with answer counts; page with `before` = the nextCursor of the previous page' })
  @ApiQuery({ name: 'status', required: false, enum: PORTAL_OFFER_STATUSES })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: PORTAL_OFFERS_MAX_PAGE, default: PORTAL_OFFERS_DEFAULT_PAGE },
    description: `Offers a page: 1 to ${PORTAL_OFFERS_MAX_PAGE}, default ${PORTAL_OFFERS_DEFAULT_PAGE}`,
  })
  @ApiQuery({ name: 'before', required: false, type: String, description: 'Cursor: the nextCursor of the previous page (opaque)' })
  @ApiResponse({ status: 200, description: 'A page of your offers', type: PortalOffersPage })
  @ApiResponse({ status: 400, description: 'status, limit or before is malformed (named in errors)' })
  list(@CurrentPortalUser() user: PortalPrincipal, @Query() query: Record<string, unknown>): Promise<PortalOffersPage> {
    return this.offers.list(user, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One of your offers with every recipient’s answer and when it was given; poll with If-None-Match' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of the document you have: 304 while it is current' })
  @ApiResponse({ status: 200, description: 'The offer (as GET /offer/{id}, plus status and answer times)', type: PortalOfferView, headers: ETAG_HEADER })
  @ApiResponse({ status: 304, description: 'Not modified since the ETag in If-None-Match; no body', headers: ETAG_HEADER })
  @ApiResponse({ status: 404, description: NOT_FOUND })
  async get(
    @CurrentPortalUser() user: PortalPrincipal,
    @Param('id') offerId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | undefined> {
    const read = await this.offers.read(user, offerId, ifNoneMatch);
    // Every poll revalidates; the document is the organisation's own, so no shared cache keeps it.
    void reply.header('ETag', read.etag).header('Cache-Control', 'private, no-cache');
    if (read.body === undefined) {
      void reply.status(304);
      return undefined;
    }
    void reply.type('application/json; charset=utf-8');
    return read.body;
  }

  @Post(':id/complete')
  @HttpCode(204)
  @ApiOperation({ summary: 'Complete the offer naming the assigned workers, as POST /offer/{id}/complete' })
  @ApiBody({ schema: { type: 'array', items: { type: 'string' }, maxItems: OfferLimits.workers }, description: 'Worker ids who applied (spec 2.5)' })
  @ApiResponse({ status: 204, description: 'Completed' })
  @ApiResponse({ status: 400, description: 'Not an array, or a worker who is not a recipient or has not applied' })
  @ApiResponse({ status: 404, description: NOT_FOUND })
  @ApiResponse({ status: 409, description: 'Already complete, or withdrawn' })
  async complete(@CurrentPortalUser() user: PortalPrincipal, @Param('id') offerId: string, @Body() body: unknown): Promise<void> {
    await this.offers.complete(user, offerId, body);
  }

  @Post(':id/withdraw')
  @HttpCode(200)
  @ApiOperation({ summary: 'Withdraw the offer, as GET /offer/{id}/withdraw: every original worker is told; repeating it is harmless' })
  @ApiResponse({ status: 200, description: 'Withdrawn; no body' })
  @ApiResponse({ status: 404, description: NOT_FOUND })
  @ApiResponse({ status: 409, description: 'The offer is complete' })
  async withdraw(@CurrentPortalUser() user: PortalPrincipal, @Param('id') offerId: string): Promise<void> {
    await this.offers.withdraw(user, offerId);
  }
}
