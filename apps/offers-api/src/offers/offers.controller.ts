import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CreateOfferDto, OfferLimits, OfferView } from '@availability/contracts';
import { ProblemException } from '@availability/service-core';
import { CurrentOrganisation, OrganisationAuthGuard } from '@availability/auth';
import { OffersService } from './offers.service.js';

export const API_VERSION_QUERY = { name: 'api-version', required: false, description: 'Absent means 1.0; only 1.0 is accepted' };

/** Sender API, spec 4.1. Paths are exactly as the spec gives them. */
@ApiTags('offers')
@ApiSecurity('api-key')
@ApiSecurity('bearer')
@ApiQuery(API_VERSION_QUERY)
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key (problem+json)' })
@Controller('offer')
@UseGuards(OrganisationAuthGuard)
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'CreateOffer: send an offer of work to workers' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A repeat with the same key and body returns the first offer' })
  @ApiResponse({
    status: 201,
    description: 'The new offer id, as plain text; Location: /offer/{id}',
    content: { 'text/plain': { schema: { type: 'string', format: 'uuid', example: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b' } } },
  })
  @ApiResponse({ status: 400, description: 'Field errors (problem+json)' })
  @ApiResponse({ status: 413, description: 'Body over 1 MiB' })
  @ApiResponse({ status: 422, description: 'Idempotency-Key reused with a different body' })
  async create(
    @CurrentOrganisation() organisationId: string,
    @Body() dto: CreateOfferDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { offerId, replayed } = await this.offers.create(organisationId, dto, checkedIdempotencyKey(idempotencyKey));
    void reply.header('Location', `/offer/${offerId}`).type('text/plain; charset=utf-8');
    if (replayed) void reply.header('Idempotent-Replayed', 'true');
    return offerId;
  }

  @Get(':id')
  @ApiOperation({ summary: 'GetOffer: the offer with each worker’s current response' })
  @ApiResponse({ status: 200, description: 'Offer (spec 2.3)', type: OfferView })
  @ApiResponse({ status: 404, description: 'No such offer in your organisation' })
  async get(
    @CurrentOrganisation() organisationId: string,
    @Param('id') offerId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const body = await this.offers.findJson(organisationId, offerId);
    void reply.type('application/json; charset=utf-8');
    return body;
  }

  @Post(':id/complete')
  @HttpCode(204)
  @ApiOperation({ summary: 'Complete Offer: name the assigned workers; everyone is told whether they were successful' })
  @ApiBody({ schema: { type: 'array', items: { type: 'string' }, maxItems: OfferLimits.workers }, description: 'Worker ids (spec 2.5)' })
  @ApiResponse({ status: 204, description: 'Completed' })
  @ApiResponse({ status: 400, description: 'Not an array, or a worker who is not a recipient or has not applied' })
  @ApiResponse({ status: 409, description: 'Already complete, or withdrawn' })
  async complete(@CurrentOrganisation() organisationId: string, @Param('id') offerId: string, @Body() body: unknown): Promise<void> {
    await this.offers.complete(organisationId, offerId, body);
  }

  @Get(':id/withdraw')
  @ApiOperation({ summary: 'WithdrawOffer: every original worker is told; repeating it is harmless' })
  @ApiResponse({ status: 200, description: 'Withdrawn; no body' })
  @ApiResponse({ status: 409, description: 'The offer is complete' })
  async withdraw(@CurrentOrganisation() organisationId: string, @Param('id') offerId: string): Promise<void> {
    await this.offers.withdraw(organisationId, offerId);
  }
}

function checkedIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > OfferLimits.idempotencyKeyLength || !/^[\x21-\x7e]+$/.test(key)) {
    throw ProblemException.field('Idempotency-Key', `must be 1 to ${OfferLimits.idempotencyKeyLength} visible ASCII characters`);
  }
  return key;
}
