import { offerBody } from '@availability/platform-client';
import type { JsonSchema } from './openapi.js';
import type { FuzzWorld } from './world.js';

/** Which credential an operation needs; the fuzzer sends it, or a wrong one, or none. */
export type AuthKind = 'directory-admin' | 'dispatcher-admin' | 'portal-admin' | 'portal' | 'api-key' | 'worker' | 'signature' | 'none';

type Pool = (world: FuzzWorld) => string[];

export interface BodySpec {
  /**
   * The body's schema where the OpenAPI document has none (its handler parses the body itself, or its
   * DTO lives in an app the tools may not import). Written from the code named in `source`.
   */
  schema?: JsonSchema;
  source?: string;
  /** A body the handler accepts, so one-field mutations of it reach the handler's own logic. */
  valid: (world: FuzzWorld, n: number) => unknown;
}

/** What the OpenAPI document cannot tell the fuzzer about an operation. */
export interface OperationSpec {
  auth: AuthKind;
  /** Valid values of each path parameter (other-tenant and made-up ones are added by the generator). */
  params?: Record<string, Pool>;
  /** Valid values of each documented query parameter. */
  query?: Record<string, Pool>;
  /** Absent: the operation takes no body (the fuzzer still sends one now and then). */
  body?: BodySpec;
  /** Valid values of documented header parameters. */
  headers?: Record<string, (world: FuzzWorld, n: number) => string>;
}

const organisations: Pool = (w) => [w.home.organisationId, w.other.organisationId];
const workers: Pool = (w) => [...w.home.workers, ...w.other.workers].map((worker) => worker.id);
const homeOffers: Pool = (w) => w.home.offerIds;
const apiVersion: Pool = () => ['1.0'];
const email = (n: number) => `fuzz${n}@fuzz.example`;
/** The filters of the dispatcher's delivery lists (operator and portal). */
const deliveryFilters: Record<string, Pool> = {
  before: () => ['1', '1000000'],
  limit: () => ['1', '50', '200'],
  status: () => ['pending', 'succeeded', 'failed', 'dead', 'skipped'],
  eventType: () => ['offer-response', 'contact-added'],
  eventId: () => ['00000000-0000-4000-8000-000000000000'],
  from: () => ['2020-01-01T00:00:00Z', '2026-11-24'],
  to: () => ['2100-01-01T00:00:00+01:00'],
};

/**
 * Every operation of every service's OpenAPI document, by `METHOD path`. The spec checks this table
 * against the documents both ways, so a new endpoint fails the suite until it is described here.
 */
export const OPERATIONS: Record<string, Record<string, OperationSpec>> = {
  'contact-directory': {
    'DELETE /admin/api-keys/{apiKeyId}': { auth: 'directory-admin', params: { apiKeyId: (w) => w.spare.apiKeyIds } },
    'POST /admin/organisations': { auth: 'directory-admin', body: { valid: (_, n) => ({ name: `Fuzz organisation ${n}`, kind: 'agency' }) } },
    'POST /admin/organisations/{organisationId}/api-keys': {
      auth: 'directory-admin',
      params: { organisationId: organisations },
      body: { valid: () => ({ name: 'fuzz key' }) },
    },
    'PUT /admin/organisations/{organisationId}/suggestion-provider': {
      auth: 'directory-admin',
      params: { organisationId: organisations },
      body: { valid: (_, n) => ({ approved: n % 2 === 0 }) },
    },
    'POST /admin/organisations/{organisationId}/users': {
      auth: 'directory-admin',
      params: { organisationId: organisations },
      body: { valid: (_, n) => ({ email: email(n), name: 'Fuzz User', role: 'member' }) },
    },
    'POST /admin/organisations/{organisationId}/workers': {
      auth: 'directory-admin',
      params: { organisationId: organisations },
      body: { valid: (_, n) => ({ name: 'Fuzz Worker', email: email(n) }) },
    },
    'POST /admin/organisations/{organisationId}/workers/bulk': {
      auth: 'directory-admin',
      params: { organisationId: organisations },
      body: { valid: (_, n) => ({ workers: [{ name: 'Fuzz Worker A' }, { name: 'Fuzz Worker B', email: email(n) }] }) },
    },
    'PUT /admin/organisations/{organisationId}/workers/{workerId}': {
      auth: 'directory-admin',
      params: { organisationId: organisations, workerId: workers },
    },
    'DELETE /admin/user-tokens/{tokenId}': { auth: 'directory-admin', params: { tokenId: (w) => w.spare.userTokenIds } },
    'POST /admin/users/{userId}/tokens': { auth: 'directory-admin', params: { userId: (w) => [w.home.memberUser.id, w.other.memberUser.id] } },
    'DELETE /admin/worker-tokens/{tokenId}': { auth: 'directory-admin', params: { tokenId: (w) => w.spare.workerTokenIds } },
    'POST /admin/workers/{workerId}/tokens': { auth: 'directory-admin', params: { workerId: workers } },
    'GET /portal/company-profile': { auth: 'portal' },
    'PUT /portal/company-profile/suggestions': {
      auth: 'portal-admin',
      body: { valid: () => ({ enabled: true }) },
    },
    'DELETE /portal/company-profile/webhook': { auth: 'portal-admin' },
    'PUT /portal/company-profile/webhook': {
      auth: 'portal-admin',
      body: { valid: (w) => ({ baseUrl: w.urls['example-integrator'], secret: w.integratorSecret }) },
    },
    'POST /portal/contact-suggestions/search': {
      auth: 'portal',
      body: { valid: (w) => ({ filter: 'a', organisationIds: [w.home.organisationId] }) },
    },
    'POST /portal/invitations': {
      auth: 'portal',
      body: { valid: (w, n) => ({ invitations: [{ name: 'Jo Contact', emailAddress: email(n), suggestedByOrganisationId: w.home.organisationId }] }) },
    },
    'GET /portal/suggestion-providers': { auth: 'portal' },
    'PUT /portal/suggestion-providers/{organisationId}': {
      auth: 'portal-admin',
      params: { organisationId: organisations },
      body: { valid: (_, n) => ({ enabled: n % 2 === 0 }) },
    },
    'GET /worker/contacts': { auth: 'worker' },
    'PUT /worker/contacts/{organisationId}': { auth: 'worker', params: { organisationId: organisations } },
  },
  'example-integrator': {
    'POST /contact-suggestions': {
      auth: 'signature',
      body: {
        source: 'apps/example-integrator/src/contacts/contacts.ts (parseSuggestionRequest; spec 2.6)',
        schema: {
          type: 'object',
          required: ['userEmailAddresses'],
          properties: { filter: { type: 'string' }, userEmailAddresses: { type: 'array', items: { type: 'string', format: 'email' } } },
        },
        valid: () => ({ filter: 'a', userEmailAddresses: ['admin@fuzz.example'] }),
      },
    },
    'GET /contact/new/{workerId}': { auth: 'signature', params: { workerId: workers } },
    'POST /offer/response': {
      auth: 'signature',
      body: {
        source: 'apps/example-integrator/src/webhooks/webhooks.controller.ts (records any signed body; spec 4.2 Worker Offer Response)',
        schema: {
          type: 'object',
          required: ['offerId', 'workerId', 'response'],
          properties: { offerId: { type: 'string', format: 'uuid' }, workerId: { type: 'string', format: 'uuid' }, response: { type: 'string', enum: ['applied', 'rejected'] } },
        },
        valid: (w) => ({ offerId: w.home.offerIds[0], workerId: w.home.workers[0].id, response: 'applied' }),
      },
    },
    'DELETE /received': { auth: 'none' },
    'GET /received': { auth: 'none' },
    'GET /test': { auth: 'none' },
    'GET /test/auth': { auth: 'signature' },
  },
  'notification-service': {
    'GET /worker/devices': { auth: 'worker' },
    'PUT /worker/devices': { auth: 'worker', body: { valid: (_, n) => ({ token: `fuzz-device-${n}`, platform: 'ios', appVersion: '2.4.1' }) } },
    'DELETE /worker/devices/{deviceId}': { auth: 'worker', params: { deviceId: (w) => w.deviceIds } },
    'GET /worker/notifications': { auth: 'worker', query: { limit: () => ['1', '50', '100'], before: () => ['1', '1000000'] } },
  },
  'offers-api': {
    'POST /offer': {
      auth: 'api-key',
      query: { 'api-version': apiVersion },
      headers: { 'Idempotency-Key': (_, n) => `fuzz-key-${n % 4}` },
      body: { valid: (w) => offerBody(w.home.adminUser.id, w.home.workers.map((worker) => worker.id)) },
    },
    'GET /offer/{id}': { auth: 'api-key', params: { id: homeOffers }, query: { 'api-version': apiVersion } },
    'POST /offer/{id}/complete': {
      auth: 'api-key',
      params: { id: homeOffers },
      query: { 'api-version': apiVersion },
      body: { valid: (w) => [w.home.workers[0].id] },
    },
    'GET /offer/{id}/withdraw': { auth: 'api-key', params: { id: homeOffers }, query: { 'api-version': apiVersion } },
    'GET /worker/offers': { auth: 'worker', query: { limit: () => ['1', '50', '100'], before: () => ['1', '1000000'] } },
    'GET /worker/offers/{id}': { auth: 'worker', params: { id: homeOffers } },
    'PUT /worker/offers/{id}/response': { auth: 'worker', params: { id: homeOffers }, body: { valid: () => ({ response: 'applied' }) } },
  },
  'webhook-dispatcher': {
    'GET /admin/deliveries': {
      auth: 'dispatcher-admin',
      query: { ...deliveryFilters, organisationId: organisations },
    },
    'POST /admin/deliveries/redeliver': {
      auth: 'dispatcher-admin',
      body: {
        valid: (w) => ({ since: '2020-01-01T00:00:00Z', organisationId: w.home.organisationId, statuses: ['failed', 'dead'] }),
      },
    },
    'GET /admin/deliveries/{id}': { auth: 'dispatcher-admin', params: { id: (w) => w.deliveryIds } },
    'POST /admin/deliveries/{id}/redeliver': { auth: 'dispatcher-admin', params: { id: (w) => w.deliveryIds } },
    'GET /admin/endpoints/{organisationId}': { auth: 'dispatcher-admin', params: { organisationId: organisations } },
    'GET /portal/webhooks/deliveries': { auth: 'portal', query: deliveryFilters },
    'GET /portal/webhooks/deliveries/{id}': { auth: 'portal', params: { id: (w) => w.deliveryIds } },
    'POST /portal/webhooks/deliveries/{id}/redeliver': { auth: 'portal', params: { id: (w) => w.deliveryIds } },
    'POST /portal/webhooks/deliveries/redeliver': {
      auth: 'portal',
      body: { valid: (_, n) => ({ since: new Date(Date.now() - (n % 7) * 86_400_000).toISOString(), statuses: ['failed', 'dead'] }) },
    },
    'GET /portal/webhooks/endpoint': { auth: 'portal' },
    'POST /portal/webhooks/endpoint/enable': { auth: 'portal-admin' },
    'POST /portal/webhooks/test-events': { auth: 'portal', body: { valid: (_, n) => ({ type: n % 2 === 0 ? 'offer-response' : 'contact-added' }) } },
    'GET /.well-known/webhook-keys.json': { auth: 'none' },
  },
};
