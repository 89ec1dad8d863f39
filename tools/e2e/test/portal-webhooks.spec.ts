import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Value } from '@sinclair/typebox/value';
import { WorkerOfferResponse } from '@availability/contracts';
import {
  DirectoryAdminClient,
  expectStatus,
  type HttpResult,
  issuePortalUserToken,
  offerBody,
  OffersClient,
  PortalClient,
  request,
  seedOrganisation,
  type SeededOrganisation,
  WorkerContactsClient,
} from '@availability/platform-client';
import { eventually, startTestPlatform, TEST_ADMIN_TOKEN, TestIntegrator, type TestPlatform } from '@availability/testing';
import { type JsonWebKeySet, verifyRequest, verifyStandardWebhook, verifyWithKeySet } from '@availability/webhook-signing';

/**
 * The portal's Webhooks page against the real services: two organisations, each with its own portal
 * users and endpoint. Organisation A's endpoint is a receiver the test scripts (it keeps every
 * request's raw headers and body, so each signature can be checked, and it can go down); B's is the
 * example integrator. Each organisation sees and acts on its own deliveries only; the operator token
 * and other credentials are refused.
 */
const DISPATCHER_ADMIN_TOKEN = 'portal-webhooks-dispatcher-admin-token-0123456789';
const INTEGRATOR_SECRET = 'portal-webhooks-integrator-secret-0123';
const A_SECRET = 'portal-webhooks-a-secret-0123456789abcdef';
/** A's endpoint is disabled after this long without a success, so the test can see every state on the way. */
const DISABLE_AFTER_MS = 5_000;

interface Attempt {
  attemptNo: number;
  series: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  errorKind: string | null;
  responseExcerpt: string | null;
}

interface Delivery {
  id: number;
  eventId: string;
  organisationId: string;
  eventSubject: string;
  eventType: string | null;
  test: boolean;
  webhookId: string;
  method: string;
  path: string;
  offerId: string | null;
  workerId: string | null;
  status: string;
  attempts: number;
  series: number;
  attemptLog: Attempt[];
  request?: { method: string; url: string | null; headers: Record<string, string>; perAttemptHeaders: string[]; body: string };
}

interface EndpointState {
  organisationId: string;
  state: string;
  baseUrl: string | null;
  circuitOpen: boolean;
  heldCount: number;
  disabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastFailureError: string | null;
}

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

let platform: TestPlatform;
/** Organisation A's service: keeps every call as it arrived; 503 to the webhooks while `receiverDown`, never to its checks. */
let receiver: TestIntegrator;
let receiverDown = false;
let dispatcher: string;
let a: SeededOrganisation;
let b: SeededOrganisation;
/** Portal tokens: A's admin and member, B's admin. */
const tokens = { aAdmin: '', aMember: '', bAdmin: '' };
let startedAt: string;
/** A's offer a worker applied to. */
let offerId: string;

function portal<T>(token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
  return request<T>(dispatcher, method, `/portal/webhooks${path}`, { body, headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers } });
}

async function list(token: string, query = ''): Promise<{ items: Delivery[]; nextCursor: string | null }> {
  return expectStatus(await portal<{ items: Delivery[]; nextCursor: string | null }>(token, 'GET', `/deliveries${query}`), 200).json;
}

async function endpoint(token: string): Promise<EndpointState> {
  return expectStatus(await portal<EndpointState>(token, 'GET', '/endpoint'), 200).json;
}

function problemOf(result: HttpResult<unknown>): Problem & { slug: string } {
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = result.json as Problem;
  expect(problem.status).toBe(result.status);
  return { ...problem, slug: problem.type.slice(problem.type.lastIndexOf('/') + 1) };
}

/** Waits until `token`'s organisation has `count` deliveries matching `query`, all finished as `status`. */
function settled(token: string, query: string, count: number, status = 'succeeded'): Promise<Delivery[]> {
  return eventually(
    async () => {
      const { items } = await list(token, query);
      return items.length === count && items.every((item) => item.status === status) && items;
    },
    20_000,
    `${count} deliveries ${query} to be ${status}`,
  );
}

beforeAll(async () => {
  receiver = await TestIntegrator.start({
    secret: A_SECRET,
    answer: ({ path }) =>
      receiverDown && !path.startsWith('/test') ? { status: 503, body: 'down for maintenance' } : { status: 200, body: '{"received":true}', contentType: 'application/json' },
  });
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'webhook-dispatcher', 'example-integrator'], {
    DISPATCHER_ADMIN_TOKEN,
    INTEGRATOR_SECRET,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // Retries soon after each other; the breaker opens after 3 failures and tries again every half second.
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_BACKOFF_CAP_MS: '200',
    WEBHOOK_BREAKER_THRESHOLD: '3',
    WEBHOOK_BREAKER_COOLDOWN_MS: '500',
    WEBHOOK_DISABLE_AFTER_HOURS: String(DISABLE_AFTER_MS / 3_600_000),
  });
  dispatcher = platform.url('webhook-dispatcher');
  const directory = platform.url('contact-directory');
  const admin = new DirectoryAdminClient(directory, TEST_ADMIN_TOKEN);
  a = await seedOrganisation(admin, { name: 'Portal Webhooks A', kind: 'integrator', workers: 2 });
  b = await seedOrganisation(admin, { name: 'Portal Webhooks B', workers: 1 });
  const aMember = await admin.createUser(a.organisation.id, { email: `member@${a.organisation.id.slice(0, 8)}.example`, name: 'A member', role: 'member' });
  tokens.aAdmin = (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, a.user.id)).token;
  tokens.aMember = (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, aMember.id)).token;
  tokens.bAdmin = (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, b.user.id)).token;
  await new PortalClient(directory, tokens.aAdmin).saveWebhook(receiver.url, A_SECRET, ['hmac', 'v1', 'v1a']);
  await new PortalClient(directory, tokens.bAdmin).saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
  startedAt = new Date(Date.now() - 1_000).toISOString();

  // Real events: a worker adds A (and one adds B) as a contact; a worker applies to A's offer.
  await new WorkerContactsClient(directory, a.workers[0].token).addContact(a.organisation.id);
  await new WorkerContactsClient(directory, b.workers[0].token).addContact(b.organisation.id);
  const offers = new OffersClient(platform.url('offers-api'), a.apiKey);
  offerId = expectStatus(await offers.createOffer(offerBody(a.user.id, [a.workers[1].id])), 201).text;
  expectStatus(await offers.as(a.workers[1].token).answer(offerId, 'applied'), 200);
  await settled(tokens.aAdmin, '', 2);
  await settled(tokens.bAdmin, '', 1);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  receiver?.close();
});

describe('an organisation’s deliveries', () => {
  it('lists its own deliveries only, each with every attempt: time, status code, latency, response excerpt', async () => {
    const { items } = await list(tokens.aAdmin);
    expect(items.map((item) => item.organisationId)).toEqual([a.organisation.id, a.organisation.id]);
    expect(items.map((item) => item.eventType).sort()).toEqual(['contact-added', 'offer-response']);
    for (const item of items) {
      expect(item.test).toBe(false);
      expect(item.attemptLog).toEqual([
        { attemptNo: 1, series: 0, startedAt: expect.any(String), durationMs: expect.any(Number), statusCode: 200, errorKind: null, errorMessage: null, responseExcerpt: '{"received":true}' },
      ]);
      expect(Date.parse(item.attemptLog[0].startedAt)).toBeGreaterThanOrEqual(Date.parse(startedAt));
    }
    const one = expectStatus(await portal<Delivery>(tokens.aMember, 'GET', `/deliveries/${items[0].id}`), 200).json;
    const { request: sent, ...listed } = one;
    expect(listed).toEqual(items[0]);
    expect(sent).toMatchObject({ method: one.method, headers: { 'webhook-id': one.webhookId }, perAttemptHeaders: expect.arrayContaining(['webhook-signature', 'webhook-timestamp']) });
    // The request as it arrived: the same URL, body and every header the log says each attempt sends.
    const arrived = receiver.calls.find((call) => call.webhookId === one.webhookId);
    expect(arrived).toBeDefined();
    expect(sent?.body).toBe(arrived?.body ?? '');
    for (const [name, value] of Object.entries(sent?.headers ?? {})) expect([name, arrived?.headers[name]]).toEqual([name, value]);

    const response = items.find((item) => item.eventType === 'offer-response');
    const contact = items.find((item) => item.eventType === 'contact-added');
    expect(response).toMatchObject({ offerId, workerId: a.workers[1].id });
    expect(contact).toMatchObject({ offerId: null, workerId: a.workers[0].id });

    const ofB = await list(tokens.bAdmin);
    expect(ofB.items).toHaveLength(1);
    expect(ofB.items[0]).toMatchObject({ organisationId: b.organisation.id, eventType: 'contact-added' });
  });

  it('filters by status, event type and time, and pages', async () => {
    expect((await list(tokens.aAdmin, '?eventType=contact-added')).items.map((item) => item.eventSubject)).toEqual(['contacts.added']);
    expect((await list(tokens.aAdmin, '?eventType=offer-response')).items.map((item) => item.eventSubject)).toEqual(['offers.response.recorded']);
    expect((await list(tokens.aAdmin, '?status=succeeded')).items).toHaveLength(2);
    expect((await list(tokens.aAdmin, '?status=failed')).items).toHaveLength(0);
    const soon = new Date(Date.now() + 60_000).toISOString();
    expect((await list(tokens.aAdmin, `?from=${encodeURIComponent(startedAt)}&to=${encodeURIComponent(soon)}`)).items).toHaveLength(2);
    expect((await list(tokens.aAdmin, `?to=${encodeURIComponent(startedAt)}`)).items).toHaveLength(0);
    expect((await list(tokens.aAdmin, `?from=${encodeURIComponent(soon)}`)).items).toHaveLength(0);

    const first = await list(tokens.aAdmin, '?limit=1');
    expect(first.items).toHaveLength(1);
    const second = await list(tokens.aAdmin, `?limit=1&before=${first.nextCursor}`);
    expect(second.items).toHaveLength(1);
    expect(second.items[0].id).toBeLessThan(first.items[0].id);

    const response = (await list(tokens.aAdmin, '?eventType=offer-response')).items[0];
    expect((await list(tokens.aAdmin, `?offerId=${offerId}`)).items.map((item) => item.id)).toEqual([response.id]);
    expect((await list(tokens.aAdmin, `?workerId=${a.workers[1].id}`)).items.map((item) => item.id)).toEqual([response.id]);
    expect((await list(tokens.aAdmin, `?workerId=${a.workers[0].id}`)).items.map((item) => item.eventType)).toEqual(['contact-added']);
    expect((await list(tokens.aAdmin, `?webhookId=${encodeURIComponent(response.webhookId)}`)).items.map((item) => item.id)).toEqual([response.id]);
    expect((await list(tokens.bAdmin, `?offerId=${offerId}`)).items).toEqual([]);

    const bad = await portal(tokens.aAdmin, 'GET', '/deliveries?status=lost&eventType=x');
    expect(bad.status).toBe(400);
    expect(Object.keys(problemOf(bad).errors ?? {})).toHaveLength(1);
    expect(problemOf(await portal(tokens.aAdmin, 'GET', '/deliveries?from=2026-11-24T09:00:00')).errors).toEqual({ from: [expect.stringMatching(/ISO 8601/)] });
  });
});

describe('tenant isolation and authentication', () => {
  it('another organisation’s delivery is a 404 to every operation on it, and changes nothing of it', async () => {
    const [ofA] = (await list(tokens.aAdmin)).items;
    for (const [method, path] of [
      ['GET', `/deliveries/${ofA.id}`],
      ['POST', `/deliveries/${ofA.id}/redeliver`],
      ['GET', '/deliveries/999999999'],
      ['GET', '/deliveries/not-an-id'],
    ] as const) {
      const answer = await portal(tokens.bAdmin, method, path);
      expect([method, path, answer.status, problemOf(answer).slug]).toEqual([method, path, 404, 'not-found']);
    }
    expect((await list(tokens.bAdmin)).items.map((item) => item.organisationId)).toEqual([b.organisation.id]);
    // B's redelivery by time reaches B's deliveries only.
    expect(expectStatus(await portal(tokens.bAdmin, 'POST', '/deliveries/redeliver', { since: startedAt, statuses: ['failed', 'dead'] }), 202).json).toEqual({ redelivered: 0 });
    expect(expectStatus(await portal<Delivery>(tokens.aAdmin, 'GET', `/deliveries/${ofA.id}`), 200).json).toMatchObject({ series: 0, attempts: 1 });
  });

  it('answers 401 without a portal token: none, the operator token, an API key, a worker token', async () => {
    const operations: Array<[string, string, unknown?]> = [
      ['GET', '/deliveries'],
      ['GET', '/deliveries/1'],
      ['POST', '/deliveries/1/redeliver'],
      ['POST', '/deliveries/redeliver', { since: startedAt }],
      ['GET', '/endpoint'],
      ['POST', '/endpoint/enable'],
      ['POST', '/test-events', { type: 'contact-added' }],
    ];
    for (const credential of [null, DISPATCHER_ADMIN_TOKEN, a.apiKey, a.workers[0].token, 'put_not-a-token']) {
      for (const [method, path, body] of operations) {
        const answer = await portal(credential, method, path, body);
        expect([credential, method, path, answer.status, problemOf(answer).slug]).toEqual([credential, method, path, 401, 'unauthorized']);
      }
    }
    // Nor is the operator token sent as X-Api-Key taken for anything else.
    expect((await portal(null, 'GET', '/endpoint', undefined, { 'x-api-key': DISPATCHER_ADMIN_TOKEN })).status).toBe(401);
    expect(receiver.calls.filter((r) => r.headers['webhook-test'])).toHaveLength(0);
  });
});

describe('signing keys', () => {
  it('names the key set’s address as integrators reach it, and each published key with its validity', async () => {
    const shown = expectStatus(await portal<{ keySetUrl: string; keys: Array<{ kid: string; x: string; signs: boolean; notAfter: string | null }> }>(tokens.aMember, 'GET', '/signing-keys'), 200).json;
    // The address shown answers with the key set.
    const address = new URL(shown.keySetUrl);
    expect(address.pathname).toBe('/.well-known/webhook-keys.json');
    const published = expectStatus(await request<{ keys: Array<{ kid: string; x: string }> }>(address.origin, 'GET', address.pathname), 200).json;
    expect(shown.keys.map(({ kid, x }) => ({ kid, x }))).toEqual(published.keys.map(({ kid, x }) => ({ kid, x })));
    expect(shown.keys[0]).toMatchObject({ signs: true, notAfter: null });
    expect((await portal(null, 'GET', '/signing-keys')).status).toBe(401);
  });
});

describe('test events', () => {
  let keySet: JsonWebKeySet;

  beforeAll(async () => {
    keySet = expectStatus(await request<JsonWebKeySet>(dispatcher, 'GET', '/.well-known/webhook-keys.json'), 200).json;
  });

  it('of each type arrive signed like real ones (hmac, v1 and v1a verify), marked as a test in the header and the body', async () => {
    for (const type of ['offer-response', 'contact-added'] as const) {
      const queued = expectStatus(await portal<Delivery>(tokens.aMember, 'POST', '/test-events', { type }), 202).json;
      expect(queued).toMatchObject({ organisationId: a.organisation.id, eventType: type, test: true, status: 'pending', series: 0 });
      const [arrived] = await eventually(() => receiver.withId(queued.webhookId).length > 0 && receiver.withId(queued.webhookId), 15_000, `the ${type} test event`);
      expect(arrived.headers['webhook-test']).toBe('true');
      expect(arrived.path).toBe(queued.path);
      const signed = { headers: arrived.headers };
      expect(verifyRequest({ secret: A_SECRET, request: { method: arrived.method, url: arrived.path, headers: arrived.headers }, body: arrived.body })).toEqual({ ok: true });
      expect(verifyStandardWebhook({ secret: A_SECRET, headers: arrived.headers, body: arrived.body })).toEqual({ ok: true });
      expect(verifyWithKeySet(signed, arrived.body, keySet)).toEqual({ ok: true });
      // A wrong secret does not verify: the signature is real.
      expect(verifyStandardWebhook({ secret: 'another-secret-0123456789abcdef', headers: arrived.headers, body: arrived.body }).ok).toBe(false);
      if (type === 'offer-response') {
        expect(arrived.method).toBe('POST');
        const body = JSON.parse(arrived.body) as Record<string, unknown>;
        expect(body.test).toBe(true);
        expect(Value.Errors(WorkerOfferResponse, body).First()).toBeUndefined();
      } else {
        expect([arrived.method, arrived.body]).toEqual(['GET', '']);
      }
      const delivered = await settled(tokens.aAdmin, `?eventId=${queued.eventId}`, 1);
      expect(delivered[0]).toMatchObject({ test: true, attempts: 1, attemptLog: [expect.objectContaining({ statusCode: 200 })] });
    }
    // Real deliveries never carry the mark.
    expect(receiver.calls.filter((r) => r.headers['webhook-id'] && !r.headers['webhook-test'] && r.body.includes('"test"'))).toEqual([]);
  });

  it('reach the example integrator, which records them as tests, not as real webhooks', async () => {
    const sent: Delivery[] = [];
    for (const type of ['offer-response', 'contact-added']) sent.push(expectStatus(await portal<Delivery>(tokens.bAdmin, 'POST', '/test-events', { type }), 202).json);
    const received = await eventually(
      async () => {
        const { items } = expectStatus(await request<{ items: Array<{ webhookId: string; test: boolean }> }>(platform.url('example-integrator'), 'GET', '/received'), 200).json;
        return sent.every((delivery) => items.some((item) => item.webhookId === delivery.webhookId)) && items;
      },
      15_000,
      'the example integrator to receive both test events',
    );
    for (const delivery of sent) expect(received.find((item) => item.webhookId === delivery.webhookId)?.test).toBe(true);
    const [real] = (await list(tokens.bAdmin, '?eventType=contact-added')).items.filter((item) => !item.test);
    expect(received.find((item) => item.webhookId === real.webhookId)?.test).toBe(false);
    // Only to B's endpoint: A's receiver saw none of B's.
    for (const delivery of sent) expect(receiver.withId(delivery.webhookId)).toEqual([]);
  });

  it('refuses a type that is not a webhook type, changing nothing', async () => {
    const before = (await list(tokens.aAdmin)).items.length;
    for (const body of [{ type: 'offers.created' }, {}, { type: ['contact-added'] }]) {
      const answer = await portal(tokens.aAdmin, 'POST', '/test-events', body);
      expect([body, answer.status, problemOf(answer).errors]).toEqual([body, 400, { type: [expect.stringMatching(/offer-response, contact-added/)] }]);
    }
    expect((await list(tokens.aAdmin)).items).toHaveLength(before);
  });
});

describe('redelivery and the endpoint', () => {
  it('redelivers one delivery: a new series with the same webhook-id', async () => {
    const [contact] = (await list(tokens.aMember, '?eventType=contact-added')).items.filter((item) => !item.test);
    const redelivered = expectStatus(await portal<Delivery>(tokens.aMember, 'POST', `/deliveries/${contact.id}/redeliver`), 202).json;
    expect(redelivered).toMatchObject({ id: contact.id, series: 1, status: 'pending' });
    await eventually(() => receiver.withId(contact.webhookId).length === 2, 15_000, 'the redelivery');
    const [after] = await settled(tokens.aAdmin, `?eventId=${contact.eventId}`, 1);
    expect(after.attemptLog.map((attempt) => [attempt.series, attempt.statusCode])).toEqual([
      [0, 200],
      [1, 200],
    ]);
    expect(await endpoint(tokens.aAdmin)).toMatchObject({ state: 'healthy', circuitOpen: false, heldCount: 0, disabled: false, lastSuccessAt: expect.any(String) });
  });

  it('names the saved address while every call succeeds', async () => {
    expect(await endpoint(tokens.aMember)).toMatchObject({ state: 'healthy', baseUrl: receiver.url, failingSince: null, lastFailureAt: null });
    expect(await endpoint(tokens.bAdmin)).toMatchObject({ state: 'healthy', baseUrl: platform.url('example-integrator') });
  });

  it('shows an outage as it happens: failing, circuit open with deliveries held, then disabled and why', async () => {
    receiverDown = true;
    const outageFrom = new Date().toISOString();
    for (let i = 0; i < 4; i += 1) expectStatus(await portal(tokens.aAdmin, 'POST', '/test-events', { type: i % 2 ? 'offer-response' : 'contact-added' }), 202);
    const open = await eventually(
      async () => {
        const state = await endpoint(tokens.aMember);
        return state.state === 'circuit-open' && state.heldCount > 0 && state;
      },
      DISABLE_AFTER_MS,
      'the circuit to open with deliveries held',
    );
    expect(open).toMatchObject({ circuitOpen: true, disabled: false, failingSince: expect.any(String), lastFailureError: 'HTTP 503' });
    const disabled = await eventually(
      async () => {
        const state = await endpoint(tokens.aMember);
        return state.disabled && state;
      },
      DISABLE_AFTER_MS + 10_000,
      'the endpoint to be disabled',
    );
    expect(disabled).toMatchObject({ state: 'disabled', heldCount: 0, disabledReason: expect.stringMatching(/had no successful call for \d+ s$/) });
    // B's endpoint is its own.
    expect(await endpoint(tokens.bAdmin)).toMatchObject({ organisationId: b.organisation.id, state: 'healthy', disabled: false });

    const dead = await settled(tokens.aAdmin, `?from=${encodeURIComponent(outageFrom)}`, 4, 'dead');
    expect(dead.every((delivery) => delivery.test)).toBe(true);

    // Nothing is sent to a disabled endpoint: each send is refused and changes nothing.
    const sends: Array<[string, string, unknown?]> = [
      ['POST', '/test-events', { type: 'contact-added' }],
      ['POST', `/deliveries/${dead[0].id}/redeliver`],
      ['POST', '/deliveries/redeliver', { since: outageFrom }],
    ];
    for (const [method, path, body] of sends) {
      const answer = await portal(tokens.aAdmin, method, path, body);
      expect([path, answer.status, problemOf(answer).slug]).toEqual([path, 409, 'webhook-endpoint-disabled']);
    }
    expect((await list(tokens.aAdmin, `?from=${encodeURIComponent(outageFrom)}`)).items).toHaveLength(4);
  });

  it('is re-enabled by an admin only (not a member, not another organisation), then what died is redelivered since a time', async () => {
    const forbidden = await portal(tokens.aMember, 'POST', '/endpoint/enable');
    expect([forbidden.status, problemOf(forbidden).slug]).toEqual([403, 'forbidden']);
    // Another organisation's admin enables its own endpoint only.
    expect(expectStatus(await portal<EndpointState>(tokens.bAdmin, 'POST', '/endpoint/enable'), 200).json.organisationId).toBe(b.organisation.id);
    expect((await endpoint(tokens.aAdmin)).disabled).toBe(true);

    receiverDown = false;
    const enabled = expectStatus(await portal<EndpointState>(tokens.aAdmin, 'POST', '/endpoint/enable'), 200).json;
    expect(enabled).toMatchObject({ organisationId: a.organisation.id, disabled: false, disabledReason: null, failingSince: null, heldCount: 0, circuitOpen: false });

    const invalid = await portal(tokens.aAdmin, 'POST', '/deliveries/redeliver', { since: new Date(Date.now() - 40 * 86_400_000).toISOString() });
    expect([invalid.status, problemOf(invalid).errors]).toEqual([400, { since: ['must be within the last 30 days'] }]);
    // Asked first: how many it would send again, for this organisation only, changing nothing.
    const since = encodeURIComponent(startedAt);
    const preview = expectStatus(await portal(tokens.aAdmin, 'GET', `/deliveries/redeliverable?since=${since}`), 200).json;
    expect(preview).toEqual({ deliveries: 4, capped: false, cappedAt: 10_000 });
    expect(expectStatus(await portal(tokens.bAdmin, 'GET', `/deliveries/redeliverable?since=${since}`), 200).json).toMatchObject({ deliveries: 0 });
    expect(expectStatus(await portal(tokens.aAdmin, 'GET', `/deliveries/redeliverable?since=${since}`), 200).json).toEqual(preview);
    const unbounded = await portal(tokens.aAdmin, 'GET', '/deliveries/redeliverable');
    expect([unbounded.status, Object.keys(problemOf(unbounded).errors ?? {})]).toEqual([400, ['since']]);
    const redelivered = expectStatus(await portal<{ redelivered: number }>(tokens.aAdmin, 'POST', '/deliveries/redeliver', { since: startedAt }), 202).json;
    expect(redelivered).toEqual({ redelivered: 4 });
    await eventually(async () => (await list(tokens.aAdmin, '?status=succeeded&limit=200')).items.length === (await list(tokens.aAdmin, '?limit=200')).items.length, 20_000, 'every delivery to succeed');
    expect(await endpoint(tokens.aAdmin)).toMatchObject({ state: 'healthy', heldCount: 0, disabled: false, failingSince: null });
  });

  it('the operator sees the same log, test deliveries marked', async () => {
    const operator = await request<{ items: Delivery[] }>(dispatcher, 'GET', `/admin/deliveries?organisationId=${a.organisation.id}&limit=200`, {
      headers: { authorization: `Bearer ${DISPATCHER_ADMIN_TOKEN}` },
    });
    const own = await list(tokens.aAdmin, '?limit=200');
    expect(expectStatus(operator, 200).json.items).toEqual(own.items);
    expect(own.items.filter((item) => item.test)).toHaveLength(6);
  });

  it('names a re-saved address at once, and keeps when the last failure was', async () => {
    const before = await endpoint(tokens.aAdmin);
    expect(before).toMatchObject({ baseUrl: receiver.url, lastFailureAt: expect.any(String), lastFailureError: expect.stringMatching(/^HTTP 503/) });
    const moved = receiver.url.replace('localhost', '127.0.0.1');
    await new PortalClient(platform.url('contact-directory'), tokens.aAdmin).saveWebhook(moved, A_SECRET, ['hmac', 'v1', 'v1a']);
    // The directory's change reaches the dispatcher as a broadcast: the next look names the new address.
    const after = await eventually(
      async () => {
        const state = await endpoint(tokens.aMember);
        return state.baseUrl === moved && state;
      },
      10_000,
      'the re-saved address',
    );
    expect(after).toMatchObject({ state: 'healthy', lastFailureAt: before.lastFailureAt, lastFailureError: before.lastFailureError });
  });
});
