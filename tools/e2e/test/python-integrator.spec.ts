import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  issuePortalUserToken,
  offerBody,
  OffersClient,
  PortalClient,
  seedOrganisation,
  WorkerContactsClient,
  type SeededOrganisation,
} from '@availability/platform-client';
import { eventually, freePort, startTestPlatform, type TestPlatform } from '@availability/testing';
import { signRequest } from '@availability/webhook-signing';
import { assertPython, PYTHON_INTEGRATOR_DIR, PythonIntegrator, type RecordedCall } from '../src/python-integrator.js';

/**
 * An integrator that shares no code with the platform: tools/e2e/python-integrator, written in Python
 * from docs/integrator-guide.md alone. It registers itself by host name (`http://localhost:<port>/hooks/v1`,
 * as a real integrator would, not 127.0.0.1), verifies both signature schemes with its own code and
 * records per call which verified; the platform calls it exactly as it calls anyone.
 */
const SECRET = 'python-integrator-secret-0123456789';
const BASE_PATH = '/hooks/v1';
const RECEIVED_TOKEN = 'python-integrator-received-token';
const BOTH_VERIFIED = { hmac: true, standardWebhooks: true };

let platform: TestPlatform;
let integrator: PythonIntegrator | undefined;
let agency: SeededOrganisation;
let agencyPortalToken: string;
let hirerPortal: PortalClient;
let hirerEmail: string;

beforeAll(async () => {
  assertPython();
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'webhook-dispatcher'], {
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_BACKOFF_BASE_MS: '200',
  });
  const directory = platform.url('contact-directory');
  agency = await seedOrganisation(platform.admin, { name: 'Python Staffing', workers: 2, userEmail: 'admin@python-staffing.example' });
  // An agency answers contact suggestions only once an operator vouches for it.
  await platform.admin.approveSuggestionProvider(agency.organisation.id);
  agencyPortalToken = (await issuePortalUserToken(directory, platform.env.DIRECTORY_ADMIN_TOKEN, agency.user.id)).token;
  hirerEmail = 'hirer@python-hirer.example';
  const hirer = await seedOrganisation(platform.admin, { name: 'Python Hirer', kind: 'hirer', workers: 0, userEmail: hirerEmail });
  hirerPortal = new PortalClient(directory, (await issuePortalUserToken(directory, platform.env.DIRECTORY_ADMIN_TOKEN, hirer.user.id)).token);
}, 120_000);

afterAll(async () => {
  await integrator?.stop();
  await platform?.stop();
});

function running(): PythonIntegrator {
  if (!integrator) throw new Error('the Python integrator did not start (see the first test)');
  return integrator;
}

/** Waits until the Python integrator has recorded a call that `match` picks. */
async function recorded(what: string, match: (call: RecordedCall) => boolean): Promise<RecordedCall[]> {
  return eventually(
    async () => {
      const found = (await running().received()).calls.filter(match);
      return found.length > 0 && found;
    },
    20_000,
    what,
  );
}

/** A call straight to the Python integrator, not through the platform; `path` as on the request line. */
async function sendDirectly(path: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  const response = await fetch(new URL(path, running().baseUrl), init);
  return { status: response.status, text: await response.text() };
}

describe('an integrator in Python, standard library only, reached by host name', () => {
  it('verifies the worked examples of libs/webhook-signing/README.md (python3 -m unittest)', () => {
    const run = spawnSync('python3', ['-m', 'unittest', 'test_integrator'], {
      cwd: PYTHON_INTEGRATOR_DIR,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
    });
    expect({ status: run.status, output: run.stderr.split('\n').slice(-4).join('\n') }).toEqual({ status: 0, output: expect.stringContaining('OK') });
  });

  it('registers itself as http://localhost:<port>/hooks/v1; the platform calls /test and /test/auth there, and it refuses the forged and stale checks', async () => {
    integrator = await PythonIntegrator.start({
      port: await freePort(),
      secret: SECRET,
      basePath: BASE_PATH,
      receivedToken: RECEIVED_TOKEN,
      directoryUrl: platform.url('contact-directory'),
      portalToken: agencyPortalToken,
      enableSuggestions: true,
    });
    const outcome = await integrator.waitForEvent(['registered', 'registration-failed'], 30_000);
    if (outcome.event !== 'registered') throw new Error(`it could not register: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ event: 'registered', profile: { baseUrl: integrator.baseUrl, secretSet: true, suggestionsEnabled: true } });
    expect(integrator.baseUrl).toMatch(/^http:\/\/localhost:\d+\/hooks\/v1$/);

    const profile = await new PortalClient(platform.url('contact-directory'), agencyPortalToken).companyProfile();
    expect(profile).toMatchObject({ organisationId: agency.organisation.id, baseUrl: integrator.baseUrl, secretSet: true });

    const { calls } = await integrator.received();
    expect(calls.map((call) => ({ call: call.call, method: call.method, path: call.path, status: call.status, verified: call.verified }))).toEqual([
      { call: 'test', method: 'GET', path: `${BASE_PATH}/test`, status: 200, verified: { hmac: false, standardWebhooks: false } },
      { call: 'test-auth', method: 'GET', path: `${BASE_PATH}/test/auth`, status: 200, verified: BOTH_VERIFIED },
      // Signed with a wrong secret, then signed right but stale: it verifies, so the profile carries no warning.
      { call: 'test-auth', method: 'GET', path: `${BASE_PATH}/test/auth`, status: 401, verified: { hmac: false, standardWebhooks: false } },
      { call: 'test-auth', method: 'GET', path: `${BASE_PATH}/test/auth`, status: 401, verified: { hmac: false, standardWebhooks: false } },
    ]);
    expect(profile).toMatchObject({ verificationWarning: null });
  });

  it('a worker’s answer reaches it as a Worker Offer Response, verified under both schemes', async () => {
    const sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
    const created = await sender.createOffer(offerBody(agency.user.id, agency.workers.map((worker) => worker.id)));
    expect(created.status).toBe(201);
    const offerId = created.text;
    const worker = agency.workers[0];
    expect((await sender.as(worker.token).answer(offerId, 'applied')).status).toBe(200);

    const [call] = await recorded('the Worker Offer Response', (c) => c.call === 'offer-response' && c.body.includes(offerId));
    expect(call).toMatchObject({ method: 'POST', path: `${BASE_PATH}/offer/response`, status: 204, verified: BOTH_VERIFIED, reasons: {}, duplicate: false, stale: false });
    const body = JSON.parse(call.body) as Record<string, string>;
    expect(Object.keys(body)).toEqual(['eventId', 'offerId', 'workerId', 'response', 'respondedAt', 'sequence']);
    expect(body).toEqual({ eventId: expect.any(String), offerId, workerId: worker.id, response: 'applied', respondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), sequence: 1 });
    expect(call.webhookId).toBe(`${body.eventId}:${agency.organisation.id}`);
  });

  it('a worker adding the organisation as a contact reaches it as GET /contact/new/{workerId}, verified', async () => {
    const worker = agency.workers[1];
    expect(await new WorkerContactsClient(platform.url('contact-directory'), worker.token).addContact(agency.organisation.id)).toBe(true);

    const [call] = await recorded('the contact-added call', (c) => c.call === 'contact-added');
    expect(call).toMatchObject({ method: 'GET', path: `${BASE_PATH}/contact/new/${worker.id}`, workerId: worker.id, status: 204, verified: BOTH_VERIFIED, body: '' });
  });

  it('a hirer’s contact-suggestions search shows its suggestions, filtered by the search text', async () => {
    const search = await hirerPortal.searchSuggestions({ filter: 'grace', organisationIds: [agency.organisation.id] });
    expect(search.providers).toEqual([expect.objectContaining({ organisationId: agency.organisation.id, status: 'ok', returned: 1, dropped: 0 })]);
    expect(search.suggestions).toEqual([
      expect.objectContaining({
        name: 'Grace Hopper',
        emailAddress: 'grace.hopper@python-integrator.example',
        // The platform's copy of the picture, never the integrator's own address.
        profileImagePath: expect.stringMatching(/^\/portal\/contact-suggestions\/image\?ref=/),
        ratings: [{ rating: 5, ratingProvider: 'Dock 4 night shift', lastWorked: expect.stringMatching(/^2026-10-01/) }],
        organisationId: agency.organisation.id,
      }),
    ]);

    const everyone = await hirerPortal.searchSuggestions({ organisationIds: [agency.organisation.id] });
    expect(everyone.suggestions.map((s) => s.name).sort()).toEqual(['Alan Turing', 'Grace Hopper', 'Katherine Johnson']);

    const calls = await recorded('two suggestion requests', (c) => c.call === 'contact-suggestions');
    expect(calls.map((c) => ({ path: c.path, status: c.status, verified: c.verified, body: JSON.parse(c.body) as unknown }))).toEqual([
      { path: `${BASE_PATH}/contact-suggestions`, status: 200, verified: BOTH_VERIFIED, body: { filter: 'grace', userEmailAddresses: [hirerEmail] } },
      { path: `${BASE_PATH}/contact-suggestions`, status: 200, verified: BOTH_VERIFIED, body: { userEmailAddresses: [hirerEmail] } },
    ]);
  });

  it('rejects with 401 what does not verify, sent to it directly, and acts on an event once', async () => {
    const path = `${BASE_PATH}/offer/response`;
    const body = JSON.stringify({ eventId: 'e-1', offerId: 'o-1', workerId: 'w-1', response: 'applied', respondedAt: new Date().toISOString() });
    const signed = (overrides: { secrets?: string[]; pathWithQuery?: string; now?: Date; webhookId: string }) =>
      signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: path, body, ...overrides });
    const post = (headers: Record<string, string>, sent = body) =>
      sendDirectly(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: sent });

    const none = { hmac: false, standardWebhooks: false };
    const cases = [
      { name: 'wrong secret', headers: signed({ secrets: ['not-the-secret-0123456789'], webhookId: 'bad-1' }), body, verified: none },
      { name: 'body changed after signing', headers: signed({ webhookId: 'bad-2' }), body: body.replace('applied', 'rejected'), verified: none },
      // Standard Webhooks does not cover the path; the hmac scheme does, so the call is still refused.
      { name: 'signed for another path', headers: signed({ pathWithQuery: '/offer/response', webhookId: 'bad-3' }), body, verified: { hmac: false, standardWebhooks: true } },
      { name: 'ten minutes old', headers: signed({ now: new Date(Date.now() - 600_000), webhookId: 'bad-4' }), body, verified: none },
      { name: 'unsigned', headers: { 'webhook-id': 'bad-5' }, body, verified: none },
    ];
    for (const attempt of cases) expect({ case: attempt.name, status: (await post(attempt.headers, attempt.body)).status }).toEqual({ case: attempt.name, status: 401 });

    const unsignedAuth = await sendDirectly(`${BASE_PATH}/test/auth`, { method: 'GET', headers: {} });
    expect(unsignedAuth.status).toBe(401);

    // Signed, but with an id that names no event (as /test/auth's does): not a webhook of the platform's.
    const notAnEvent = signed({ webhookId: 'test-not-an-event' });
    expect((await post(notAnEvent)).status).toBe(400);

    // The same request properly signed, during a rotation (another secret signs first): accepted, once.
    const good = signed({ secrets: ['the-next-secret-0123456789', SECRET], webhookId: 'good-1:direct' });
    expect((await post(good)).status).toBe(204);
    expect((await post(good)).status).toBe(204);

    const received = await running().received();
    for (const attempt of cases) {
      const call = received.calls.find((c) => c.webhookId === attempt.headers['webhook-id']);
      expect({ case: attempt.name, status: call?.status, verified: call?.verified }).toEqual({ case: attempt.name, status: 401, verified: attempt.verified });
    }
    expect(received.calls.find((c) => c.webhookId === 'test-not-an-event')).toMatchObject({ status: 400, verified: BOTH_VERIFIED });
    const acted = received.webhooks.filter((w) => w.webhookId.startsWith('bad-') || w.webhookId.endsWith(':direct') || w.webhookId === 'test-not-an-event');
    expect(acted.map((w) => ({ webhookId: w.webhookId, deliveries: w.deliveries }))).toEqual([{ webhookId: 'good-1:direct', deliveries: 2 }]);
    expect(received.calls.filter((c) => c.webhookId === 'good-1:direct').map((c) => c.duplicate)).toEqual([false, true]);
  });

  it('acted on each webhook the platform sent exactly once', async () => {
    const fromPlatform = (await running().received()).webhooks.filter((w) => w.webhookId.includes(':') && !w.webhookId.endsWith(':direct'));
    expect(fromPlatform.map((w) => ({ path: w.path, deliveries: w.deliveries })).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: `${BASE_PATH}/contact/new/${agency.workers[1].id}`, deliveries: 1 },
      { path: `${BASE_PATH}/offer/response`, deliveries: 1 },
    ]);
  });
});
