import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { pageFromQuery, ProblemException, singleQueryParam, validateBody } from '@availability/service-core';
import { DELIVERY_STATUSES, DeliveriesRepository, type DeliveryStatus } from '../delivery/deliveries.repository.js';
import { deliveryOf } from '../delivery/delivery.js';
import { RetryQueue } from '../delivery/retry-queue.js';
import { AdminAuthGuard } from './admin-auth.js';
import { DeliveriesPage, DeliveryLogView, EndpointStateView, RedeliveredView } from './deliveries.view.js';

export class RedeliverAllDto {
  /** ISO 8601: deliveries of events recorded at or after this time. */
  @MaxLength(40)
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 timestamp' })
  since: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  organisationId?: string;

  /** Which deliveries to start again; default failed and dead. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(['failed', 'dead'], { each: true })
  statuses?: Array<'failed' | 'dead'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PAGE = 200;

/** Operator API: the delivery log with every attempt, and redelivery. Every error is problem+json. */
@ApiTags('deliveries')
@ApiBearerAuth('admin')
@ApiResponse({ status: 401, description: 'Missing or wrong admin token (problem+json)' })
@Controller('admin')
@UseGuards(AdminAuthGuard)
export class DeliveriesController {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly retries: RetryQueue,
  ) {}

  @Get('deliveries')
  @ApiOperation({ summary: 'List deliveries with their attempts, newest first; page with `before` = the last id seen' })
  @ApiQuery({ name: 'organisationId', required: false })
  @ApiQuery({ name: 'eventId', required: false })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiQuery({ name: 'limit', required: false, description: `1..${MAX_PAGE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'cursor: the nextCursor of the previous page' })
  @ApiOkResponse({ description: 'A page of deliveries', type: DeliveriesPage })
  async list(@Query() query: Record<string, unknown>): Promise<DeliveriesPage> {
    const { limit, before } = pageFromQuery(query.limit, query.before, MAX_PAGE);
    const organisationId = singleQueryParam('organisationId', query.organisationId);
    const eventId = singleQueryParam('eventId', query.eventId);
    const status = singleQueryParam('status', query.status);
    if (eventId !== undefined && !UUID.test(eventId)) throw ProblemException.field('eventId', 'must be a uuid');
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
      throw ProblemException.field('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    }
    const items = await this.repository.list({
      organisationId,
      eventId,
      status: status as DeliveryStatus | undefined,
      before,
      limit,
    });
    return { items, nextCursor: items.length === limit ? String(items[items.length - 1].id) : null };
  }

  @Get('deliveries/:id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @ApiOkResponse({ description: 'The delivery', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: 'No such delivery' })
  async get(@Param('id') id: string): Promise<DeliveryLogView> {
    const delivery = /^\d{1,15}$/.test(id) ? await this.repository.find(Number(id)) : undefined;
    if (!delivery) throw ProblemException.notFound('The delivery');
    return delivery;
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver again: a new attempt series, same webhook-id (integrators de-duplicate on it)' })
  @ApiAcceptedResponse({ description: 'Queued; the delivery, now in a new series', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: 'No such delivery, or it was skipped (nothing to send)' })
  async redeliver(@Param('id') id: string): Promise<DeliveryLogView> {
    const row = /^\d{1,15}$/.test(id) ? await this.repository.startRedelivery(Number(id)) : undefined;
    if (!row) throw ProblemException.notFound('The delivery');
    await this.retries.schedule(deliveryOf(row), 1, 0);
    return (await this.repository.find(row.id)) as DeliveryLogView;
  }

  @Post('deliveries/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver again every failed/dead delivery of events recorded since a time, optionally of one organisation' })
  @ApiAcceptedResponse({ description: 'Queued; how many', type: RedeliveredView })
  async redeliverAll(@Body() body: unknown): Promise<RedeliveredView> {
    const dto = validateBody(RedeliverAllDto, body ?? {});
    const rows = await this.repository.startRedeliveries(new Date(dto.since), dto.statuses ?? ['failed', 'dead'], dto.organisationId);
    await this.retries.scheduleAll(rows.map((row) => ({ delivery: deliveryOf(row), attemptNo: 1 })));
    return { redelivered: rows.length };
  }

  @Get('endpoints/:organisationId')
  @ApiOperation({ summary: 'State of an organisation’s endpoint: failing since, disabled and why' })
  @ApiOkResponse({ description: 'Its state; all null for an endpoint that never failed', type: EndpointStateView })
  async endpoint(@Param('organisationId') organisationId: string): Promise<EndpointStateView> {
    return (
      ((await this.repository.endpointView(organisationId)) as EndpointStateView | undefined) ?? {
        organisationId,
        baseUrl: null,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      }
    );
  }
}
