import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, type DeliveryStatus, ENDPOINT_ACTIVITY_WINDOW } from '../delivery/deliveries.repository.js';
import { WEBHOOK_TYPE_NAMES, type WebhookType } from '../domain/webhook-call.js';

/** One call to the integrator, or a decision taken without calling (then statusCode is null and durationMs 0). */
export class DeliveryAttemptView {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Numbered across every series of the delivery', example: 1 })
  attemptNo: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'The attempt series (0 at first, one more per redelivery)', example: 0 })
  series: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.375Z' })
  startedAt: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 4 })
  durationMs: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The integrator’s HTTP status; null when no answer came', example: 200 })
  statusCode: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the call got no whole answer: timeout, unreachable (could not connect, or no valid HTTP answer), dns, tls, invalid-answer, forbidden-address, invalid-url, invalid-target',
    example: null,
  })
  errorKind: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'What went wrong in words: `HTTP <status>` for an answer, else the fixed words of errorKind', example: null })
  errorMessage: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The start of the integrator’s answer', example: '{"received":true}' })
  responseExcerpt: string | null;
}

/** A delivery's request as every attempt sends it; the log keeps no headers, so those signed per attempt are named only. */
export class DeliveryRequestView {
  @ApiProperty({ example: 'POST' })
  method: string;

  @ApiProperty({ type: String, format: 'uri', nullable: true, example: 'https://partner.example.com/hooks/v1/offer/response' })
  url: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'The headers every attempt sends as they are: webhook-id, user-agent, content-type (with a body), webhook-test (a test event)',
    example: { 'webhook-id': '9ab9a347-8e54-490e-9949-a1f91401a955:8333fa9f-0801-4965-8862-bab6bda8a17c', 'user-agent': 'AvailabilityPlatform-Webhooks/1.0', 'content-type': 'application/json' },
  })
  headers: Record<string, string>;

  @ApiProperty({
    type: [String],
    description: 'The headers each attempt computes anew, at its own time and in the schemes the organisation has then (those of its schemes only)',
    example: ['webhook-timestamp', 'webhook-signature', 'webhook-key-id', 'Timestamp', 'Authorization'],
  })
  perAttemptHeaders: string[];

  @ApiProperty({ description: 'The exact body sent and signed; empty for a GET', example: '{"eventId":"9ab9a347-8e54-490e-9949-a1f91401a955","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b"}' })
  body: string;
}

/** A webhook delivery: one event to one organisation, with every attempt. */
export class DeliveryLogView {
  @ApiProperty({ type: 'integer', example: 3 })
  id: number;

  @ApiProperty({ format: 'uuid', example: '9ab9a347-8e54-490e-9949-a1f91401a955' })
  eventId: string;

  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ description: 'The event’s subject', example: 'contacts.added' })
  eventSubject: string;

  @ApiProperty({ enum: WEBHOOK_TYPE_NAMES, nullable: true, description: 'The webhook type: offer-response (POST /offer/response) or contact-added (GET /contact/new/{workerId})', example: 'contact-added' })
  eventType: WebhookType | null;

  @ApiProperty({ description: 'A test event the organisation sent itself (marked `webhook-test: true`, and `"test": true` in a body)', example: false })
  test: boolean;

  @ApiProperty({ description: 'The webhook-id header: the same on every attempt and redelivery', example: '9ab9a347-8e54-490e-9949-a1f91401a955:8333fa9f-0801-4965-8862-bab6bda8a17c' })
  webhookId: string;

  @ApiProperty({ example: 'GET' })
  method: string;

  @ApiProperty({ description: 'The path under the organisation’s base URL', example: '/contact/new/9a13a48b-80b3-4dd1-9ee0-df8a3f1e8632' })
  path: string;

  @ApiProperty({ type: String, format: 'uri', nullable: true, description: 'The URL it goes to; null when the organisation had no base URL (then it is skipped)', example: 'https://partner.example.com/hooks/v1/contact/new/9a13a48b-80b3-4dd1-9ee0-df8a3f1e8632' })
  url: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The offer an offer response answers; null for a contact', example: null })
  offerId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The worker who answered the offer, or who added the organisation as a contact', example: '9a13a48b-80b3-4dd1-9ee0-df8a3f1e8632' })
  workerId: string | null;

  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' })
  status: DeliveryStatus;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Attempts made, in every series', example: 1 })
  attempts: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0 })
  series: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the next attempt is due; null when none is scheduled', example: null })
  nextAttemptAt: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 200 })
  lastStatusCode: number | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  lastError: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.370Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.379Z' })
  updatedAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Since when it is held back because its endpoint’s circuit is open; null when it is not', example: null })
  heldSince: string | null;

  // Optional only in the repository's type, which fills it in before any delivery is returned.
  @ApiProperty({ type: [DeliveryAttemptView], description: 'Every attempt, oldest first' })
  attemptLog?: DeliveryAttemptView[];

  @ApiProperty({ type: DeliveryRequestView, required: false, description: 'One delivery’s request as every attempt sends it (not in lists)' })
  request?: DeliveryRequestView;
}

/** A page of the delivery log, newest first. */
export class DeliveriesPage {
  @ApiProperty({ type: [DeliveryLogView] })
  items: DeliveryLogView[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `before` for the next page; null on the last', example: '2' })
  nextCursor: string | null;
}

export class RedeliveredView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Deliveries started again', example: 4 })
  redelivered: number;
}

export class RedeliverablePreviewView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Deliveries a redelivery since that time would start again now (at most `cappedAt`)', example: 4 })
  deliveries: number;

  @ApiProperty({ description: 'Whether there are at least `cappedAt` (the count stops there)', example: false })
  capped: boolean;

  @ApiProperty({ type: 'integer', description: 'Where the count stops', example: 10000 })
  cappedAt: number;
}

export const ENDPOINT_STATES = ['healthy', 'failing', 'circuit-open', 'disabled'] as const;
export type EndpointStateName = (typeof ENDPOINT_STATES)[number];

/** The state of an organisation's endpoint as the dispatcher sees it; the times are null when it never failed. */
export class EndpointStateView {
  @ApiProperty({ example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({
    enum: ENDPOINT_STATES,
    description:
      'disabled: no calls until re-enabled; circuit-open: deliveries are held back, one trial call per cool-down; failing: calls fail and are retried; healthy: otherwise',
    example: 'healthy',
  })
  state: EndpointStateName;

  @ApiProperty({ type: String, format: 'uri', nullable: true, description: 'The base URL saved in the company profile (null: none); the one its calls last failed at while contact-directory does not answer', example: 'https://partner.example.com/hooks/v1' })
  baseUrl: string | null;

  @ApiProperty({ description: 'Deliveries are held back after consecutive failures: held ones, or this instance’s breaker, open', example: false })
  circuitOpen: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Deliveries held back, waiting for the endpoint to answer (they use no attempts while held)', example: 0 })
  heldCount: number;

  @ApiProperty({ description: 'Calls to it are stopped (after a 410 Gone, or failing without a success for WEBHOOK_DISABLE_AFTER_HOURS)', example: false })
  disabled: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Start of the current run of failed calls; null while calls succeed', example: '2026-11-21T09:12:44.120Z' })
  failingSince: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When calls to it were stopped; null while it is enabled', example: null })
  disabledAt: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why calls to it were stopped', example: null })
  disabledReason: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: `Its latest successful call, among its latest ${ENDPOINT_ACTIVITY_WINDOW} deliveries`, example: '2026-11-24T22:25:19.375Z' })
  lastSuccessAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: `Its latest failed call, among its latest ${ENDPOINT_ACTIVITY_WINDOW} deliveries`, example: '2026-11-21T09:12:44.120Z' })
  lastFailureAt: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'What went wrong in that call', example: 'HTTP 503' })
  lastFailureError: string | null;
}
