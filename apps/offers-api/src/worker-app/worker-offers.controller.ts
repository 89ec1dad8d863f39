import { Body, Controller, Get, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { WorkerAnswerDto, WorkerOffersPage, WorkerOfferView } from '@availability/contracts';
import { MAX_PAGE_SIZE, pageFromQuery } from '@availability/service-core';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { OffersService } from '../offers/offers.service.js';

/** The worker app: the offers sent to the signed-in worker, and their Apply / Reject. */
@ApiTags('worker app')
@ApiSecurity('bearer')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked worker token' })
@Controller('worker/offers')
@UseGuards(WorkerAuthGuard)
export class WorkerOffersController {
  constructor(private readonly offers: OffersService) {}

  @Get()
  @ApiOperation({ summary: 'Offers sent to me, newest first' })
  @ApiQuery({ name: 'limit', required: false, description: `1 to ${MAX_PAGE_SIZE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'nextCursor of the previous page' })
  @ApiResponse({ status: 200, description: 'A page of my offers', type: WorkerOffersPage })
  list(@CurrentWorker() workerId: string, @Query('limit') limit?: string, @Query('before') before?: string): Promise<WorkerOffersPage> {
    const page = pageFromQuery(limit, before);
    return this.offers.workerOffers(workerId, page.limit, page.before);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One offer sent to me, with my response' })
  @ApiResponse({ status: 200, description: 'The offer with my response', type: WorkerOfferView })
  @ApiResponse({ status: 404, description: 'No such offer sent to me' })
  get(@CurrentWorker() workerId: string, @Param('id') offerId: string): Promise<WorkerOfferView> {
    return this.offers.workerOffer(workerId, offerId);
  }

  @Put(':id/response')
  @ApiOperation({ summary: 'Apply (applied) or Reject (rejected); answering again changes the answer' })
  @ApiResponse({ status: 200, description: 'The offer with my new response', type: WorkerOfferView })
  @ApiResponse({ status: 404, description: 'No such offer sent to me' })
  @ApiResponse({ status: 409, description: 'The offer is complete, withdrawn or over' })
  answer(@CurrentWorker() workerId: string, @Param('id') offerId: string, @Body() dto: WorkerAnswerDto): Promise<WorkerOfferView> {
    return this.offers.answer(workerId, offerId, dto.response);
  }
}

