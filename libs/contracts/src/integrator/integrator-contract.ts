import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Uuid, UtcTimestamp, WorkerId } from '../events/event-envelope.js';
import { WORKER_ANSWERS } from '../offers/offer-values.js';

/** Spec 2.6: what the platform sends to `POST /contact-suggestions`. */
export const ContactSuggestionsRequest = Type.Object({
  filter: Type.Optional(Type.String({ description: 'Search text the hirer entered to narrow the results' })),
  userEmailAddresses: Type.Array(Type.String(), { minItems: 1, description: 'E-mail addresses to base the search on in your system' }),
});
export type ContactSuggestionsRequest = Static<typeof ContactSuggestionsRequest>;

/** Spec 2.8. `lastWorked`: a UTC date-time, or a date alone as the spec's sample shows. */
export const Rating = Type.Object({
  rating: Type.Integer({ minimum: 1, maximum: 5, description: '1 to 5; 5 is best' }),
  ratingProvider: Type.String({ description: 'Who in your system gave the rating' }),
  lastWorked: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?Z)?$', description: 'When the contact last worked for the rating provider (UTC)' }),
});
export type Rating = Static<typeof Rating>;

/** Spec 2.7: one element of your answer to `POST /contact-suggestions`. */
export const ContactSuggestion = Type.Object({
  name: Type.String(),
  emailAddress: Type.String({ description: 'Where the worker invitation is sent' }),
  profileImageUrl: Type.Optional(Type.String({ description: 'Full URL of the profile image, fetched from your service' })),
  ratings: Type.Array(Rating),
});
export type ContactSuggestion = Static<typeof ContactSuggestion>;

export const ContactSuggestionsResponse = Type.Array(ContactSuggestion);

/** The Worker Offer Response body, in this key order (the signature covers the exact bytes). */
export const WorkerOfferResponse = Type.Object({
  eventId: Uuid,
  offerId: Uuid,
  workerId: WorkerId,
  response: Type.Union(WORKER_ANSWERS.map((answer) => Type.Literal(answer))),
  respondedAt: UtcTimestamp,
  sequence: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'The count of this worker’s answers to this offer, this one included: a later answer has a higher one. Keep, per (offerId, workerId), the highest sequence seen; answer 200 to a call with a lower or equal one but do not apply it (it is stale or a repeat). Absent only on an answer recorded before the platform numbered answers.',
    }),
  ),
  test: Type.Optional(
    Type.Literal(true, {
      description:
        'Present only on a test event your organisation sent itself from the portal (its ids are made up): do not act on it. Also marked by the webhook-test header.',
    }),
  ),
});
export type WorkerOfferResponse = Static<typeof WorkerOfferResponse>;

/** The contract's bodies by operation, as TypeBox schemas (the document carries the same as JSON Schema). */
export const INTEGRATOR_BODIES: Record<string, { request?: TSchema; response?: TSchema }> = {
  'POST /offer/response': { request: WorkerOfferResponse },
  'POST /contact-suggestions': { request: ContactSuggestionsRequest, response: ContactSuggestionsResponse },
};

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

const SIGNED = [{ hmac: [] }, { standardWebhooks: [] }, { standardWebhooksV1a: [] }];
const SIGNATURE_HEADERS = ['Timestamp', 'Authorization', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id'].map((name) => ({
  $ref: `#/components/parameters/${name}`,
}));
/** The webhooks proper (not /test/auth or /contact-suggestions) may be test events. */
const WEBHOOK_HEADERS = [...SIGNATURE_HEADERS, { $ref: '#/components/parameters/webhook-test' }, { $ref: '#/components/parameters/webhook-redelivery' }];
const WEBHOOK_ANSWERS = {
  '200': { description: 'Received. Any 2xx within 10 s counts; do slow work afterwards.' },
  '401': { description: 'The signature did not verify. A client error: the platform tries at most 3 times, then dead-letters the delivery.' },
  '410': { description: 'Gone: the delivery is dropped and your endpoint disabled until your admin saves the base URL again.' },
  '429': {
    description: 'Slow down: retried after Retry-After (seconds or an HTTP date, honoured up to 6 hours); not counted as failing.',
    headers: { 'Retry-After': { schema: { type: 'string' } } },
  },
  '503': { description: 'Unavailable: retried with back-off, or after Retry-After when given.' },
};

/**
 * Spec 4.2 as the platform calls it: the endpoints an integrator implements at its webhook base URL,
 * their bodies and headers, and the answers the platform expects. Written to
 * docs/integrator-openapi.json by `npm run docs:contracts`; the example integrator is tested
 * against it, and a test keeps the file current.
 */
export function integratorOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Integrator endpoints (called by the Availability Platform)',
      version: '1.0.0',
      description:
        'What your service implements at the webhook base URL saved on your company profile. Every call but GET /test is signed with the schemes you chose (docs/integrator-guide.md, "Verifying a call"). Deliveries are at least once: de-duplicate by the body\'s eventId where there is one, else by webhook-id, and refuse a webhook without a webhook-id.',
    },
    servers: [{ url: '{webhookBaseUrl}', variables: { webhookBaseUrl: { default: 'https://partner.example.com/hooks/v1' } } }],
    paths: {
      '/test': {
        get: {
          operationId: 'test',
          summary: 'The service is up (spec 5.1): called unsigned when the base URL is saved',
          security: [],
          responses: { '200': { description: 'Up. Anything else and the base URL is not saved.' } },
        },
      },
      '/test/auth': {
        get: {
          operationId: 'testAuth',
          summary: 'Authentication works (spec 5.2, 5.3): always signed with hmac, plus your other schemes',
          security: [{ hmac: [] }],
          parameters: SIGNATURE_HEADERS,
          responses: {
            '200': { description: 'Only when the signature verifies with your secret; answering 200 unconditionally leaves your endpoint open.' },
            '401': { description: 'The signature did not verify: the base URL and secret are not saved.' },
          },
        },
      },
      '/offer/response': {
        post: {
          operationId: 'workerOfferResponse',
          summary: 'Worker Offer Response: a worker applied to or rejected an offer your organisation sent',
          security: SIGNED,
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: json(WorkerOfferResponse) } } },
          responses: WEBHOOK_ANSWERS,
        },
      },
      '/contact/new/{workerId}': {
        get: {
          operationId: 'workerAddedContact',
          summary: 'Worker Added Contact: a worker added your organisation as a contact, to share availability with it',
          security: SIGNED,
          parameters: [{ name: 'workerId', in: 'path', required: true, schema: { type: 'string' }, description: 'Percent-encoded' }, ...WEBHOOK_HEADERS],
          responses: WEBHOOK_ANSWERS,
        },
      },
      '/contact-suggestions': {
        post: {
          operationId: 'contactSuggestions',
          summary: 'Contact suggestions for a hirer searching on the Invites page (spec 2.6 in, 2.7 out)',
          security: SIGNED,
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: json(ContactSuggestionsRequest) } } },
          responses: {
            '200': { description: 'The suggestions (an empty array when there are none)', content: { 'application/json': { schema: json(ContactSuggestionsResponse) } } },
            '401': { description: 'The signature did not verify: the hirer sees your organisation failed.' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        hmac: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`hmac <hex>`: HMAC-SHA256 with your secret of `Timestamp\\nMETHOD\\npathWithQuery\\nbody`; two entries, comma-separated, while you rotate.',
        },
        standardWebhooks: { type: 'apiKey', in: 'header', name: 'webhook-signature', description: 'Standard Webhooks `v1,<base64>`: HMAC-SHA256 with your secret of `webhook-id.webhook-timestamp.body`.' },
        standardWebhooksV1a: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description: 'Standard Webhooks `v1a,<base64>`: ed25519 by the platform key `webhook-key-id` names, published at /.well-known/webhook-keys.json.',
        },
      },
      parameters: {
        Timestamp: { name: 'Timestamp', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' }, description: 'With hmac: the signing time, UTC, whole seconds.' },
        Authorization: { name: 'Authorization', in: 'header', required: false, schema: { type: 'string' }, description: 'With hmac: `hmac <hex>[, hmac <hex>]`.' },
        'webhook-id': { name: 'webhook-id', in: 'header', required: false, schema: { type: 'string' }, description: '`<eventId>:<organisationId>` on the webhooks, the same on every attempt; `test-…` on /test/auth, `suggest-…` on /contact-suggestions. Signed by v1 and v1a, not by hmac: de-duplicate by the body\'s eventId where there is one, else by it.' },
        'webhook-timestamp': { name: 'webhook-timestamp', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d+$' }, description: 'The signing time, unix seconds.' },
        'webhook-signature': { name: 'webhook-signature', in: 'header', required: false, schema: { type: 'string' }, description: 'Space-separated `v1,…` and `v1a,…` entries.' },
        'webhook-key-id': { name: 'webhook-key-id', in: 'header', required: false, schema: { type: 'string' }, description: 'With v1a: the id of the platform key that signed.' },
        'webhook-test': {
          name: 'webhook-test',
          in: 'header',
          required: false,
          schema: { type: 'string', enum: ['true'] },
          description: 'Present only on a test event your organisation sent itself from the portal (Webhooks page): signed like any call, made-up ids, do not act on it.',
        },
        'webhook-redelivery': {
          name: 'webhook-redelivery',
          in: 'header',
          required: false,
          schema: { type: 'string', enum: ['true'] },
          description: 'Present on every attempt of a redelivery (yours or an operator\'s, one or by time): it may carry an answer older than one you applied. Keep the highest sequence per (offerId, workerId) and drop a lower one.',
        },
      },
      schemas: {
        ContactSuggestionsRequest: json(ContactSuggestionsRequest),
        ContactSuggestion: json(ContactSuggestion),
        Rating: json(Rating),
        WorkerOfferResponse: json(WorkerOfferResponse),
      },
    },
  };
}
