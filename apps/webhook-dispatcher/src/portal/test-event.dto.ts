import { IsIn } from 'class-validator';
import { WEBHOOK_TYPE_NAMES, type WebhookType } from '../domain/webhook-call.js';

/** `{type}`: which webhook to send a test of. */
export class TestEventDto {
  @IsIn(WEBHOOK_TYPE_NAMES, { message: `type must be one of ${WEBHOOK_TYPE_NAMES.join(', ')}` })
  type: WebhookType;
}

export const TEST_EVENT_BODY_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: {
    type: {
      type: 'string',
      enum: WEBHOOK_TYPE_NAMES,
      description: 'offer-response: POST /offer/response with made-up ids and "test": true; contact-added: GET /contact/new/{a made-up workerId}',
      example: 'offer-response',
    },
  },
};
