import { createECDH, randomBytes } from 'node:crypto';
import { offerBody } from '@availability/platform-client';
import type { JsonSchema } from './openapi.js';
import type { FuzzWorld } from './world.js';

/** The keys a browser subscribes with (PUT /worker/web-push-subscriptions checks p256dh is a point on P-256). */
const webPushKeyPair = createECDH('prime256v1');
webPushKeyPair.generateKeys();
const WEB_PUSH_KEYS = { p256dh: webPushKeyPair.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };

/** Which credential an operation needs; the fuzzer sends it, or a wrong one, or none. */
export type AuthKind =
  | 'directory-admin'
  | 'dispatcher-admin'
  | 'portal-admin'
  | 'portal'
  | 'api-key'
  | 'worker'
  | 'signature'
  | 'sign-out'
  /** The portal: a session cookie (a portal user's or a worker's) sent from the portal's own origin. */
  | 'portal-session'
  /** The portal: no session needed, but a change must come from the portal's own origin. */
  | 'portal-page'
  /** The portal's sign-out: spare session cookies only, so the ones other requests carry stay live. */
  | 'portal-sign-out'
  | 'none';

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
  /**
   * Served but in no OpenAPI document, on purpose: why, and the generator of its own that stands in
   * for the document (the spec checks it stays out of the document, and fuzzes it like the others).
   */
  undocumented?: { why: string; generator: 'portal-proxy' };
}

const organisations: Pool = (w) => [w.home.organisationId, w.other.organisationId];
const workers: Pool = (w) => [...w.home.workers, ...w.other.workers].map((worker) => worker.id);
const homeOffers: Pool = (w) => w.home.offerIds;
const apiVersion: Pool = () => ['1.0'];
const email = (n: number) => `fuzz${n}@fuzz.example`;
/** The filters of the dispatcher's delivery lists (operator and portal). */
const deliveryFilters: Record<string, Pool> = {
  before: () => ['1', '1000000'],
  offerId: (w) => [...homeOffers(w), ...w.other.offerIds],
  workerId: workers,
  webhookId: (w) => [`${w.home.offerIds[0]}:${w.home.organisationId}`, '00000000-0000-4000-8000-000000000000:00000000-0000-4000-8000-000000000000'],
  limit: () => ['1', '50', '200'],
  status: () => ['pending', 'succeeded', 'failed', 'dead', 'skipped', 'superseded'],
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
    // References are sealed by the directory: the fuzzer cannot make a valid one, so every call is a 404 (or a 400/401).
    'GET /portal/contact-suggestions/image': { auth: 'portal', query: { ref: () => ['v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA', 'v1.x.y.z'] } },
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
    // Sign-in: the home admin's address (seeded as admin@<organisation id's first 8>.example) gets e-mails (paced past five an hour); made-up codes are refused.
    'POST /sign-in/links': {
      auth: 'none',
      body: { valid: (w, n) => ({ email: n % 3 === 0 ? `admin@${w.home.organisationId.slice(0, 8)}.example` : email(n), audience: n % 2 === 0 ? 'portal' : 'worker' }) },
    },
    'POST /sign-in/sessions': { auth: 'none', body: { valid: (_, n) => ({ code: Buffer.alloc(32, n % 256).toString('base64url') }) } },
    // Signs out spare session tokens only (`sign-out`), so the credentials other requests carry stay live.
    'DELETE /sign-in/session': { auth: 'sign-out' },
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
    'GET /worker/web-push/key': { auth: 'worker' },
    'GET /worker/web-push-subscriptions': { auth: 'worker' },
    // A browser's subscription: a real P-256 point and auth secret; the endpoint's host never resolves (.invalid), so pushes to it go nowhere.
    'PUT /worker/web-push-subscriptions': {
      auth: 'worker',
      body: { valid: (_, n) => ({ endpoint: `https://push.example.invalid/wpush/fuzz-${n}`, expirationTime: null, keys: WEB_PUSH_KEYS }) },
    },
    // Ids of devices, not subscriptions: every delete is a 404 (the seeded world has no subscription to lose).
    'DELETE /worker/web-push-subscriptions/{subscriptionId}': { auth: 'worker', params: { subscriptionId: (w) => w.deviceIds } },
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
    'GET /portal/offers': {
      auth: 'portal',
      query: {
        'api-version': apiVersion,
        status: () => ['open', 'ended', 'complete', 'withdrawn'],
        limit: () => ['1', '20', '100'],
        // Cursors as encodeOfferCursor (apps/offers-api/src/portal-offers/portal-offer-query.ts) writes them: `<created_at µs>:<id>`, base64url.
        before: () => ['1764079302123456:0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b', '9007199254740991:ffffffff-ffff-4fff-bfff-ffffffffffff'].map((c) => Buffer.from(c).toString('base64url')),
      },
    },
    'GET /portal/offers/{id}': {
      auth: 'portal',
      params: { id: homeOffers },
      query: { 'api-version': apiVersion },
      headers: { 'If-None-Match': (_, n) => ['"p1.0"', '"p2.0"', '*'][n % 3] },
    },
    'POST /portal/offers/{id}/complete': {
      auth: 'portal',
      params: { id: homeOffers },
      query: { 'api-version': apiVersion },
      body: { valid: (w) => [w.home.workers[0].id] },
    },
    'POST /portal/offers/{id}/withdraw': { auth: 'portal', params: { id: homeOffers }, query: { 'api-version': apiVersion } },
  },
  portal: {
    // Through to contact-directory's POST /sign-in/links: the home admin's address now and then (its e-mails paced past five an hour), made-up ones otherwise.
    'POST /session/links': {
      auth: 'portal-page',
      body: { valid: (w, n) => ({ email: n % 5 === 0 ? `admin@${w.home.organisationId.slice(0, 8)}.example` : email(n), audience: n % 2 === 0 ? 'portal' : 'worker' }) },
    },
    // Codes of the e-mailed links' shape (43 characters of base64url); made up, so refused by contact-directory.
    'POST /session': { auth: 'portal-page', body: { valid: (_, n) => ({ code: Buffer.alloc(32, n % 256).toString('base64url') }) } },
    'GET /session': { auth: 'portal-session' },
    'DELETE /session': { auth: 'portal-sign-out' },
    'ANY /api/{service}/{path}': {
      auth: 'portal-session',
      undocumented: {
        why: 'the pages’ way to the services’ portal and worker APIs (apps/portal/src/api-proxy), documented in those services’ own documents',
        generator: 'portal-proxy',
      },
    },
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
    'GET /portal/webhooks/deliveries/redeliverable': {
      auth: 'portal',
      query: { since: () => [new Date(Date.now() - 86_400_000).toISOString(), '2020-01-01T00:00:00Z'] },
    },
    'POST /portal/webhooks/deliveries/redeliver': {
      auth: 'portal',
      body: { valid: (_, n) => ({ since: new Date(Date.now() - (n % 7) * 86_400_000).toISOString(), statuses: ['failed', 'dead'] }) },
    },
    'GET /portal/webhooks/endpoint': { auth: 'portal' },
    'GET /portal/webhooks/signing-keys': { auth: 'portal' },
    'POST /portal/webhooks/endpoint/enable': { auth: 'portal-admin' },
    'POST /portal/webhooks/test-events': { auth: 'portal', body: { valid: (_, n) => ({ type: n % 2 === 0 ? 'offer-response' : 'contact-added' }) } },
    'GET /.well-known/webhook-keys.json': { auth: 'none' },
  },
};
