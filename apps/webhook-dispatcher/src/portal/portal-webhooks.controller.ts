import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPortalUser, type PortalPrincipal } from '@availability/auth';
import { DELIVERY_STATUSES } from '../delivery/deliveries.repository.js';
import { WEBHOOK_TYPE_NAMES } from '../domain/webhook-call.js';
import { DeliveriesPage, DeliveryLogView, EndpointStateView, RedeliverablePreviewView, RedeliveredView } from '../delivery-log/delivery-log.view.js';
import { REDELIVER_SINCE_BODY_SCHEMA } from '../delivery-log/redeliver.dto.js';
import { SigningKeysView } from '../keys/key-set.view.js';
import { PortalWebhooksGuard } from './portal-auth.js';
import { PORTAL_MAX_PAGE, PortalWebhooks } from './portal-webhooks.js';
import { REDELIVERY_WINDOW_DAYS } from './portal-webhooks.policy.js';
import { TEST_EVENT_BODY_SCHEMA } from './test-event.dto.js';

const NOT_FOUND = 'No such delivery of your organisation (another organisation’s deliveries are not found either)';
const DISABLED = 'Your endpoint is disabled: an admin re-enables it first (webhook-endpoint-disabled)';

/**
 * The portal's Webhooks page: an organisation's own deliveries with every attempt, redelivery, its
 * endpoint's state and re-enabling, and test events. The organisation is the portal token's.
 */
@ApiTags('portal: webhooks')
@ApiBearerAuth('portal')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token (the operator token is not accepted)' })
@Controller('portal/webhooks')
@UseGuards(PortalWebhooksGuard)
export class PortalWebhooksController {
  constructor(private readonly webhooks: PortalWebhooks) {}

  @Get('deliveries')
  @ApiOperation({ summary: 'Your deliveries with their attempts, newest first; page with `before` = the nextCursor of the previous page' })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiQuery({ name: 'eventType', required: false, enum: WEBHOOK_TYPE_NAMES })
  @ApiQuery({ name: 'eventId', required: false, type: String, format: 'uuid', description: 'uuid of the event (the first part of webhook-id)' })
  @ApiQuery({ name: 'webhookId', required: false, type: String, description: 'the webhook-id header, <event id>:<organisation id>' })
  @ApiQuery({ name: 'offerId', required: false, type: String, format: 'uuid', description: 'deliveries about this offer (its responses)' })
  @ApiQuery({ name: 'workerId', required: false, type: String, format: 'uuid', description: 'deliveries about this worker (their answers, their adding you as a contact)' })
  @ApiQuery({ name: 'from', required: false, type: String, example: '2026-11-24T09:00:00Z', description: 'ISO 8601 with offset: events recorded at or after this time' })
  @ApiQuery({ name: 'to', required: false, type: String, example: '2026-11-25T09:00:00Z', description: 'ISO 8601 with offset: events recorded before this time' })
  @ApiQuery({ name: 'limit', required: false, description: `1..${PORTAL_MAX_PAGE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'cursor: the nextCursor of the previous page' })
  @ApiOkResponse({ description: 'A page of your deliveries', type: DeliveriesPage })
  @ApiResponse({ status: 400, description: 'A filter or paging parameter is malformed (named in errors)' })
  list(@CurrentPortalUser() user: PortalPrincipal, @Query() query: Record<string, unknown>): Promise<DeliveriesPage> {
    return this.webhooks.list(user, query);
  }

  @Get('deliveries/:id')
  @ApiOperation({ summary: 'One of your deliveries with every attempt: time, status code, latency, response excerpt, error kind' })
  @ApiOkResponse({ description: 'The delivery', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: NOT_FOUND })
  get(@CurrentPortalUser() user: PortalPrincipal, @Param('id') id: string): Promise<DeliveryLogView> {
    return this.webhooks.get(user, id);
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver again: a new attempt series with the same webhook-id (de-duplicate on it)' })
  @ApiAcceptedResponse({ description: 'Queued; the delivery, now in a new series', type: DeliveryLogView })
  @ApiResponse({ status: 404, description: NOT_FOUND })
  @ApiResponse({ status: 409, description: `The delivery was skipped, nothing to send (delivery-skipped); or ${DISABLED}` })
  redeliver(@CurrentPortalUser() user: PortalPrincipal, @Param('id') id: string): Promise<DeliveryLogView> {
    return this.webhooks.redeliver(user, id);
  }

  @Get('deliveries/redeliverable')
  @ApiOperation({ summary: 'How many failed and dead deliveries a redelivery since a time would start again now: ask before you redeliver' })
  @ApiQuery({ name: 'since', required: true, type: String, example: '2026-11-24T09:00:00Z', description: `ISO 8601 with offset, at most ${REDELIVERY_WINDOW_DAYS} days back` })
  @ApiOkResponse({ description: 'The count', type: RedeliverablePreviewView })
  @ApiResponse({ status: 400, description: `since missing, malformed, in the future or more than ${REDELIVERY_WINDOW_DAYS} days back` })
  redeliverable(@CurrentPortalUser() user: PortalPrincipal, @Query() query: Record<string, unknown>): Promise<RedeliverablePreviewView> {
    return this.webhooks.redeliverablePreview(user, query);
  }

  @Post('deliveries/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: `Deliver again every failed (and dead) delivery of events recorded since a time, at most ${REDELIVERY_WINDOW_DAYS} days back` })
  @ApiBody({ schema: REDELIVER_SINCE_BODY_SCHEMA })
  @ApiAcceptedResponse({ description: 'Queued; how many', type: RedeliveredView })
  @ApiResponse({ status: 400, description: `since missing, malformed, in the future or more than ${REDELIVERY_WINDOW_DAYS} days back; statuses other than failed, dead` })
  @ApiResponse({ status: 409, description: DISABLED })
  async redeliverSince(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<RedeliveredView> {
    return { redelivered: await this.webhooks.redeliverSince(user, body) };
  }

  @Get('signing-keys')
  @ApiOperation({ summary: 'The platform’s v1a signing keys: the key set’s address as integrators reach it, each key with whether it signs and until when it is published' })
  @ApiOkResponse({ description: 'The keys', type: SigningKeysView })
  signingKeys(): SigningKeysView {
    return this.webhooks.signingKeys();
  }

  @Get('endpoint')
  @ApiOperation({ summary: 'Your endpoint’s state: circuit open, deliveries held, disabled and why, last success and failure' })
  @ApiOkResponse({ description: 'Its state', type: EndpointStateView })
  endpoint(@CurrentPortalUser() user: PortalPrincipal): Promise<EndpointStateView> {
    return this.webhooks.endpoint(user);
  }

  @Post('endpoint/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Admins: resume calls to your endpoint now (enabled, its breaker reset, held deliveries sent); what was dead-lettered meanwhile is redelivered separately',
  })
  @ApiOkResponse({ description: 'Its state now', type: EndpointStateView })
  @ApiResponse({ status: 403, description: 'Not an admin of the organisation' })
  enable(@CurrentPortalUser() user: PortalPrincipal): Promise<EndpointStateView> {
    return this.webhooks.enable(user);
  }

  @Post('test-events')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send yourself a test event of a webhook type: signed and delivered like real ones (logged, retried), marked "webhook-test: true" and "test": true in a body',
  })
  @ApiBody({ schema: TEST_EVENT_BODY_SCHEMA })
  @ApiAcceptedResponse({ description: 'Queued; the test delivery', type: DeliveryLogView })
  @ApiResponse({ status: 400, description: 'type missing or not a webhook type' })
  @ApiResponse({ status: 409, description: `No webhook base URL saved (webhook-not-set-up); or ${DISABLED}` })
  @ApiResponse({ status: 503, description: 'contact-directory did not say where your service is; retry shortly' })
  sendTest(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<DeliveryLogView> {
    return this.webhooks.sendTest(user, body);
  }
}
