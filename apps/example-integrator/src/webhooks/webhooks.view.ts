import { ApiProperty } from '@nestjs/swagger';

/** `GET /test`: the service is up. */
export class UpView {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';
}

/** `GET /test/auth`: the platform's signature verified. */
export class AuthenticatedView {
  @ApiProperty({ enum: ['authenticated'], example: 'authenticated' })
  status: 'authenticated';
}

/** The acknowledgement of a webhook. */
export class ReceivedView {
  @ApiProperty({ description: 'False for a repeat of an event already received (the same eventId in the body, else the same webhook-id): acknowledged, not acted on again', example: true })
  received: boolean;
}

/** A webhook as it arrived, once per event. */
export class ReceivedWebhookView {
  @ApiProperty({ description: 'The webhook-id header of its first delivery', example: '9ab9a347-8e54-490e-9949-a1f91401a955:8333fa9f-0801-4965-8862-bab6bda8a17c' })
  webhookId: string;

  @ApiProperty({ example: 'POST' })
  method: string;

  @ApiProperty({ description: 'The path and query as requested', example: '/offer/response' })
  path: string;

  @ApiProperty({
    description: 'The raw body as text; empty when there was none',
    example:
      '{"eventId":"5563fea5-119e-41a7-97ab-a32709975636","offerId":"8cf78c63-aa83-4088-975d-4f2d9339c728","workerId":"80af0a7c-60f5-4626-b483-ff7d133a8e92","response":"applied","respondedAt":"2026-11-24T22:25:18.966Z"}',
  })
  body: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.008Z' })
  receivedAt: string;

  @ApiProperty({ description: 'A test event sent from the portal (webhook-test header, or "test": true in the body): recorded, not acted on', example: false })
  test: boolean;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'How many times it arrived: more than 1 means the platform delivered it again', example: 1 })
  deliveries: number;
}

/** What has been received so far, oldest first (the most recent INTEGRATOR_RECEIVED_CAPACITY). */
export class ReceivedWebhooksView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Webhooks listed', example: 3 })
  count: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Repeats acknowledged but not acted on', example: 0 })
  duplicates: number;

  @ApiProperty({ type: [ReceivedWebhookView] })
  items: ReceivedWebhookView[];
}
