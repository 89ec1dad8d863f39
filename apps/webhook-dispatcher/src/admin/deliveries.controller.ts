import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { singleQueryParam, validateBody } from '@availability/service-core';
import { DELIVERY_STATUSES } from '../delivery/deliveries.repository.js';
import { WEBHOOK_TYPE_NAMES } from '../domain/webhook-call.js';
import { DeliveryLog } from '../delivery-log/delivery-log.js';
import { DeliveriesPage, DeliveryLogView, EndpointStateView, RedeliveredView } from '../delivery-log/delivery-log.view.js';
import { deliveryListFilter } from '../delivery-log/delivery-query.js';
import { EndpointStates } from '../delivery-log/endpoint-states.js';
import { REDELIVER_SINCE_BODY_SCHEMA, RedeliverSinceDto } from '../delivery-log/redeliver.dto.js';
import { AdminAuthGuard } from './admin-auth.js';

export class RedeliverAllDto extends RedeliverSinceDto {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  organisationId?: string;
}

/** The operator's redelivery by time: the portal's body, optionally narrowed to one organisation. */
const REDELIVER_ALL_BODY_SCHEMA = {
  ...REDELIVER_SINCE_BODY_SCHEMA,
  properties: { ...REDELIVER_SINCE_BODY_SCHEMA.properties, organisationId: { type: 'string', maxLength: 64, description: 'Only this organisation’s deliveries' } },
};

const MAX_PAGE = 200;

/** Operator API: the delivery log with every attempt, and redelivery. Every error is problem+json. */
@ApiTags('deliveries')
@ApiBearerAuth('admin')
@ApiResponse({ status: 401, description: 'Missing or wrong admin token (problem+json)' })
@Controller('admin')
@UseGuards(AdminAuthGuard)
export class DeliveriesController {
  constructor(
    private readonly log: DeliveryLog,
    private readonly endpoints: EndpointStates,
  ) {}

  @Get('deliveries')
  @ApiOperation({ summary: 'List deliveries with their attempts, newest first; page with `before` = the last id seen' })
  @ApiQuery({ name: 'organisationId', required: false })
  @ApiQuery({ name: 'eventId', required: false })
  @ApiQuery({ name: 'webhookId', required: false, description: 'the webhook-id header, <event id>:<organisation id>' })
  @ApiQuery({ name: 'offerId', required: false, format: 'uuid' })
  @ApiQuery({ name: 'workerId', required: false, format: 'uuid' })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiQuery({ name: 'eventType', required: false, enum: WEBHOOK_TYPE_NAMES })
  @ApiQuery({ name: 'from', required: false, type: String, example: '2026-11-24T09:00:00Z', description: 'ISO 8601 with offset: events recorded at or after this time' })
  @ApiQuery({ name: 'to', required: false, type: String, example: '2026-11-25T09:00:00Z', description: 'ISO 8601 with offset: events recorded before this time' })
  @ApiQuery({ name: 'limit', required: false, description: `1..${MAX_PAGE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'cursor: the nextCursor of the previous page' })
  @ApiOkResponse({ description: 'A page of deliveries', type: DeliveriesPage })
  list(@Query() query: Record<string, unknown>): Promise<DeliveriesPage> {
    const filter = deliveryListFilter(query, MAX_PAGE);
    return this.log.list({ ...filter, organisationId: singleQueryParam('organisationId', query.organisationId) });
  }

  @Get('deliveries/:id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @ApiOkResponse({ description: 'The delivery', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: 'No such delivery' })
  async get(@Param('id') id: string): Promise<DeliveryLogView> {
    return (await this.log.find(id)) ?? this.log.notFound();
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver again: a new attempt series, same webhook-id (integrators de-duplicate on it)' })
  @ApiAcceptedResponse({ description: 'Queued; the delivery, now in a new series', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: 'No such delivery, or it was skipped (nothing to send)' })
  async redeliver(@Param('id') id: string): Promise<DeliveryLogView> {
    return (await this.log.redeliver(id)) ?? this.log.notFound();
  }

  @Post('deliveries/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver again every failed/dead delivery of events recorded since a time, optionally of one organisation' })
  @ApiBody({ schema: REDELIVER_ALL_BODY_SCHEMA })
  @ApiAcceptedResponse({ description: 'Queued; how many', type: RedeliveredView })
  async redeliverAll(@Body() body: unknown): Promise<RedeliveredView> {
    const dto = validateBody(RedeliverAllDto, body ?? {});
    return { redelivered: await this.log.redeliverSince(new Date(dto.since), dto.statuses ?? ['failed', 'dead'], dto.organisationId) };
  }

  @Get('endpoints/:organisationId')
  @ApiOperation({ summary: 'State of an organisation’s endpoint: circuit open, held deliveries, failing since, disabled and why, last success and failure' })
  @ApiOkResponse({ description: 'Its state; the times are null for an endpoint that never failed', type: EndpointStateView })
  endpoint(@Param('organisationId') organisationId: string): Promise<EndpointStateView> {
    return this.endpoints.get(organisationId);
  }
}
