import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectStatus, offerBody, OffersClient, PortalClient, request, seedOrganisation, type SeededOrganisation, WorkerContactsClient } from '@availability/platform-client';
import {
  eventually,
  freePort,
  type IntegratorAnswer,
  type ReceivedCall,
  type ServiceProcess,
  SmtpSink,
  startTestPlatform,
  startTestPortal,
  TestIntegrator,
  type TestPlatform,
} from '@availability/testing';
import { launchChromium, pageProblems, signInByEmailedLink } from '../src/browser.js';

/**
 * The portal and the worker app in real Chromium against every real service: people sign in by the
 * link e-mailed to them, and do what the spec's people do (an integrator sets up its service and
 * watches its webhooks, a hirer invites, a sender watches answers arrive and completes, a worker
 * answers on a phone). Every page is checked with axe-core.
 */
const INTEGRATOR_SECRET = 'portal-browser-integrator-secret-0123';
const RECEIVED_TOKEN = 'portal-browser-received-token-0123456789';
const OWN_SECRET = 'portal-browser-own-service-secret-0123';

/** How the integrator's own service behaves, as the test sets it: failing its /test checks (500), down for webhooks (503). */
const ownService = { failsTests: true, down: false };

function ownAnswer({ path }: ReceivedCall): IntegratorAnswer {
  if (path.startsWith('/test')) return ownService.failsTests ? { status: 500, body: 'not ready' } : { status: 200, body: '{}', contentType: 'application/json' };
  return ownService.down ? { status: 503, body: 'down for maintenance' } : { status: 200, body: '{"received":true}', contentType: 'application/json' };
}

let platform: TestPlatform;
let portal: ServiceProcess;
let smtp: SmtpSink;
/** An integrator's own service the test controls. */
let own: TestIntegrator;
let browser: Browser;
let integrator: SeededOrganisation;
let sender: SeededOrganisation;
const workerEmails = ['wanda@workers.example', 'wilf@workers.example'];
let workerTokens: string[] = [];
let workerIds: string[] = [];
const pagesChecked: string[] = [];

/** Fails with axe's own words, or what is wider than the window, at a desk's size or a phone's. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await pageProblems(page, name)).toEqual([]);
  pagesChecked.push(name);
}

/** What a page said and where it was: printed when a test fails, so a failure in the browser can be read. */
const pageLog: string[] = [];
function watch(page: Page): void {
  page.on('console', (message) => pageLog.push(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => pageLog.push(`page error: ${error.message}`));
  page.on('requestfailed', (failed) => pageLog.push(`request failed: ${failed.method()} ${failed.url()} ${failed.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) pageLog.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
}

/** A test whose failure message carries what its pages logged, failed to load or answered with an error. */
function inBrowser(name: string, test: () => Promise<void>, timeoutMs?: number): void {
  it(
    name,
    async () => {
      pageLog.length = 0;
      try {
        await test();
      } catch (error) {
        if (error instanceof Error) error.message += `\n\nWhat the pages saw:\n${pageLog.join('\n')}`;
        throw error;
      }
    },
    timeoutMs,
  );
}

/** Signs in as the owner of `email` by the link the notification service e-mails, as a person would. */
async function signIn(context: BrowserContext, email: string, audience: 'portal' | 'worker'): Promise<Page> {
  const page = await signInByEmailedLink(context, portal.url, smtp, email, audience);
  watch(page);
  return page;
}

beforeAll(async () => {
  smtp = await SmtpSink.start();
  own = await TestIntegrator.start({ secret: OWN_SECRET, answer: ownAnswer });
  const portalPort = await freePort();
  const portalUrl = `http://localhost:${portalPort}`;
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'], {
    SMTP_URL: smtp.url,
    PORTAL_URL: portalUrl,
    // As deployed: contact-directory counts sign-in links per browser address, as the portal names it.
    TRUST_PROXY: '127.0.0.1',
    INTEGRATOR_SECRET,
    INTEGRATOR_RECEIVED_TOKEN: RECEIVED_TOKEN,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // A failed call is retried soon and given up after a few tries, so an outage shows as failed deliveries.
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_BACKOFF_CAP_MS: '200',
    WEBHOOK_MAX_ATTEMPTS: '2',
  });
  portal = await startTestPortal(platform, portalPort);

  integrator = await seedOrganisation(platform.admin, { name: 'Tidewater Integrations', kind: 'integrator', workers: 0, userEmail: 'ines@tidewater.example' });
  sender = await seedOrganisation(platform.admin, { name: 'Harbour Staffing', kind: 'agency', workers: 0, userEmail: 'sam@harbour.example' });
  // A hirer whose admin signs in as hana@ to invite.
  await seedOrganisation(platform.admin, { name: 'Northside Hotels', kind: 'hirer', workers: 0, userEmail: 'hana@northside.example' });
  const workers = await platform.admin.createWorkers(sender.organisation.id, workerEmails.map((email, i) => ({ name: ['Wanda Okafor', 'Wilf Brandt'][i], email })));
  workerTokens = workers.map((worker) => worker.token);
  workerIds = workers.map((worker) => worker.id);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await platform?.stop();
  own?.close();
  await smtp?.close();
});

describe('the portal in the browser', () => {
  let integratorPage: Page;

  inBrowser('signs a portal user in by the link e-mailed to them, and out again', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    watch(page);
    await page.goto(`${portal.url}/offers`);
    await page.getByRole('heading', { name: 'Sign in to the portal' }).waitFor();
    await expectAccessible(page, 'sign-in');
    // By keyboard alone: the skip link first, then the form, submitted with Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('email');
    await page.keyboard.type('nobody@nowhere.example');
    await page.keyboard.press('Enter');
    await page.getByText('If nobody@nowhere.example has an account').waitFor();
    expect(smtp.to('nobody@nowhere.example')).toEqual([]);

    integratorPage = await signIn(context, 'ines@tidewater.example', 'portal');
    await integratorPage.getByRole('heading', { name: 'Offers' }).waitFor();
    await integratorPage.getByText('Tidewater Integrations', { exact: true }).waitFor();
    // A __Host- cookie, kept by the browser over http://localhost as over https: Secure, for this host (no Domain) and Path=/.
    const session = (await context.cookies()).find((cookie) => cookie.name === '__Host-portal_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: true, path: '/', domain: 'localhost' });
    // The page never holds the token, and the cookie holds only the session's id.
    expect(await integratorPage.evaluate('document.cookie')).toBe('');
    expect(decodeURIComponent(session?.value ?? '')).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9+/]{43}$/);

    // The cookie acts only for the portal's own pages: the same call from another site's page is refused.
    const cookie = `__Host-portal_session=${session?.value}`;
    const fromElsewhere = await request(portal.url, 'PUT', '/api/directory/portal/company-profile/suggestions', { body: { enabled: true }, headers: { cookie, origin: 'https://elsewhere.example' } });
    expect([fromElsewhere.status, (fromElsewhere.json as { type: string }).type]).toEqual([403, expect.stringMatching(/cross-site-request$/)]);
    expect((await request(portal.url, 'GET', '/api/directory/portal/company-profile')).status).toBe(401);
    expect((await request(portal.url, 'GET', '/api/webhooks/admin/deliveries', { headers: { cookie } })).status).toBe(404);

    // Signing out ends the session everywhere: a copy of the cookie kept from before is signed out too.
    const other = await browser.newContext();
    const second = await signIn(other, 'ines@tidewater.example', 'portal');
    await second.getByRole('heading', { name: 'Offers' }).waitFor();
    const secondCookie = `__Host-portal_session=${(await other.cookies()).find((c) => c.name === '__Host-portal_session')?.value}`;
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie: secondCookie } })).status).toBe(200);
    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.getByRole('heading', { name: 'Sign in to the portal' }).waitFor();
    expect(await other.cookies()).toEqual([]);
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie: secondCookie } })).status).toBe(401);
    expect((await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: { cookie: secondCookie } })).status).toBe(401);
    // The first browser's session is its own, and lives on.
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie } })).status).toBe(200);
    await other.close();
  });

  inBrowser('saves the company profile only once the integrator’s service passes its checks, saying why it failed', async () => {
    const page = integratorPage;
    await page.getByRole('link', { name: 'Company profile' }).click();
    await page.getByRole('heading', { name: 'Company profile' }).waitFor();
    await page.getByLabel('Base service address').fill(own.url);
    await page.getByLabel('Secret', { exact: true }).fill(OWN_SECRET);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await expect(await page.getByRole('alert').textContent()).toMatch(/GET \/test.*500/);
    await expectAccessible(page, 'company-profile-failed');

    ownService.failsTests = false;
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByText('Saved: your service answered').waitFor();
    await expectAccessible(page, 'company-profile');
  });

  inBrowser('sends a test event that arrives signed and appears in the delivery log as a test', async () => {
    const page = integratorPage;
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Your endpoint' }).waitFor();
    // The saved address, before any call to it has failed.
    await page.getByRole('definition').filter({ hasText: own.url }).waitFor();
    expect(await page.getByText('not set up').count()).toBe(0);
    // Each control has a label of its own.
    const labels = (await page.evaluate("[...document.querySelectorAll('label')].map((label) => label.firstChild.textContent.trim())")) as string[];
    expect(labels.filter((label, i) => labels.indexOf(label) !== i)).toEqual([]);
    expect(labels).toEqual(expect.arrayContaining(['Event type', 'Type of test event']));
    await page.getByLabel('Type of test event', { exact: true }).selectOption('offer-response');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Test offer-response sent as delivery/).waitFor();
    const arrived = await eventually(() => own.callsTo('/offer/response')[0] ?? false, 15_000, 'the test event at the service');
    await page.locator('tbody tr').filter({ hasText: 'test' }).filter({ hasText: 'succeeded' }).first().waitFor({ timeout: 15_000 });
    await expect(await page.locator('tbody').textContent()).toContain(arrived.webhookId);
    await expectAccessible(page, 'webhooks');
  });

  inBrowser('shows a delivery’s offer, worker and request as signed, its attempts as the column counts them, and finds it by any of its ids', async () => {
    const page = integratorPage;
    const arrived = own.callsTo('/offer/response')[0];
    const body = JSON.parse(arrived.body) as { offerId: string; workerId: string; eventId: string };
    const row = page.locator('tbody tr[data-delivery]').filter({ hasText: arrived.webhookId });
    await expect(await row.textContent()).toContain(body.offerId);
    await expect(await row.textContent()).toContain(body.workerId);
    const counted = Number(await row.locator('td').nth(4).textContent());
    await row.getByRole('button', { name: /^Details of delivery/ }).click();
    const detail = page.locator('tr.detail');
    const request = detail.getByRole('region', { name: 'The request as signed' });
    await request.getByText(`webhook-id: ${arrived.webhookId}`).waitFor();
    const shown = (await request.textContent()) ?? '';
    expect(shown).toContain(`POST ${own.url}/offer/response`);
    expect(shown).toContain('webhook-test: true');
    // The signature headers are named, and said to be computed per attempt.
    expect(shown).toMatch(/Each attempt signs the request anew.*webhook-signature/s);
    // The body, indented.
    expect(shown).toContain(`"offerId": "${body.offerId}"`);
    expect(await detail.locator('ol.attempts > li').count()).toBe(counted);
    await expect(await detail.locator('ol.attempts').textContent()).toMatch(/HTTP 200 · \d+ ms/);
    await expectAccessible(page, 'webhooks-delivery');
    await row.getByRole('button', { name: /^Details of delivery/ }).click();

    const search = page.getByRole('search', { name: 'Search deliveries' });
    for (const [by, id] of [
      ['Offer id', body.offerId],
      ['Worker id', body.workerId],
      ['Event id', body.eventId],
      ['Webhook id', arrived.webhookId],
    ]) {
      await search.getByRole('combobox').selectOption({ label: by });
      await search.getByRole('searchbox', { name: by }).fill(id);
      await search.getByRole('button', { name: 'Search' }).click();
      await eventually(async () => (await page.locator('tbody tr[data-delivery]').count()) === 1 && (await row.count()) === 1, 10_000, `the delivery found by ${by}`);
    }
    await search.getByRole('searchbox').fill('');
    await search.getByRole('button', { name: 'Search' }).click();
  });

  inBrowser('shows the signing keys: the key set’s address, each key with its validity, copied at a click, and how to verify', async () => {
    const page = integratorPage;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    await page.getByRole('link', { name: 'Signing keys' }).click();
    await page.getByRole('heading', { name: 'Signing keys', level: 1 }).waitFor();
    const address = `${platform.url('webhook-dispatcher').replace('localhost', '127.0.0.1')}/.well-known/webhook-keys.json`;
    await page.getByText(address, { exact: true }).waitFor();
    const published = expectStatus(await request<{ keys: Array<{ kid: string; x: string }> }>(platform.url('webhook-dispatcher'), 'GET', '/.well-known/webhook-keys.json'), 200).json;
    for (const key of published.keys) {
      const keyRow = page.locator(`tr[data-kid="${key.kid}"]`);
      await expect(await keyRow.textContent()).toContain(key.x);
    }
    await expect(await page.locator('tbody tr').first().textContent()).toMatch(/signs now.*no end set/);
    await page.getByRole('button', { name: 'Copy key set address' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).first().waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(address);
    for (const [language, call] of [
      ['Node', 'platformKeys.verify(req, rawBody)'],
      ['Python', 'verify_v1a(request.headers, request.get_data())'],
      ['Java', 'WebhookVerifier.verifyV1a(keys, rawBody, headers'],
    ]) {
      await page.getByRole('heading', { name: language, level: 3 }).waitFor();
      const code = (await page.locator('.card').filter({ has: page.getByRole('heading', { name: language, level: 3 }) }).locator('pre').textContent()) ?? '';
      expect([language, code.includes(call), code.includes(address)]).toEqual([language, true, true]);
    }
    await expectAccessible(page, 'signing-keys');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Your endpoint' }).waitFor();
  });

  inBrowser('shows an outage’s failed deliveries and sends them again with “redeliver failed since”', async () => {
    const page = integratorPage;
    const since = new Date(Date.now() - 60_000);
    ownService.down = true;
    for (const token of workerTokens) await new WorkerContactsClient(platform.url('contact-directory'), token).addContact(integrator.organisation.id);
    // Both tries of each fail while the service is down: the log shows them as given up.
    await page.locator('tbody tr').filter({ hasText: 'contact-added' }).filter({ hasText: 'dead' }).nth(1).waitFor({ timeout: 30_000 });
    // The endpoint says when it last failed, not only how.
    await page.getByRole('definition').filter({ hasText: 'HTTP 503' }).locator('time').waitFor();
    ownService.down = false;
    const local = new Date(since.getTime() - since.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Failed since').fill(local);
    // It says how many first, and sends nothing until confirmed.
    const callsBefore = own.calls.length;
    await page.getByRole('button', { name: 'Redeliver failed since' }).click();
    const ask = page.getByRole('group', { name: 'Redeliver 2 failed deliveries?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Redeliver failed since' }).click();
    await expectAccessible(page, 'webhooks-redeliver-confirm');
    expect(own.calls.length).toBe(callsBefore);
    await ask.getByRole('button', { name: 'Yes, redeliver 2' }).click();
    await page.getByText('2 failed deliveries are being sent again.').waitFor();
    await expectAccessible(page, 'webhooks-after-outage');
    await eventually(async () => (await page.locator('tbody tr').filter({ hasText: 'contact-added' }).filter({ hasText: 'succeeded' }).count()) === 2, 20_000, 'both redelivered');
  });

  inBrowser('redelivers one delivery only once asked to confirm, and says so', async () => {
    const page = integratorPage;
    const row = page.locator('tbody tr').filter({ hasText: 'contact-added' }).first();
    const id = (await row.getAttribute('data-delivery')) as string;
    const webhookId = (await row.locator('code').textContent()) as string;
    const before = own.withId(webhookId).length;
    await row.getByRole('button', { name: 'Redeliver' }).click();
    const ask = page.getByRole('group', { name: `Redeliver delivery ${id}?` });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await ask.getByRole('button', { name: 'Yes, redeliver' }).click();
    await page.getByText(`Delivery ${id} is being sent again.`).waitFor();
    await eventually(() => own.withId(webhookId).length === before + 1, 15_000, 'the one redelivery');
  });

  inBrowser('pages through the delivery log past its first 50', async () => {
    const page = integratorPage;
    const oldest = (await page.locator('tbody tr[data-delivery]').last().getAttribute('data-delivery')) as string;
    const token = (await platform.admin.issuePortalToken(integrator.user.id)).token;
    let newest = '';
    for (let i = 0; i < 50; i += 1) {
      const sent = await request<{ id: number }>(platform.url('webhook-dispatcher'), 'POST', '/portal/webhooks/test-events', { body: { type: 'contact-added' }, headers: { authorization: `Bearer ${token}` } });
      newest = String(expectStatus(sent, 202).json.id);
    }
    await page.locator(`tbody tr[data-delivery="${newest}"]`).waitFor();
    expect(await page.locator(`tbody tr[data-delivery="${oldest}"]`).count()).toBe(0);
    await page.getByRole('button', { name: 'Older' }).click();
    await page.locator(`tbody tr[data-delivery="${oldest}"]`).waitFor();
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.locator(`tbody tr[data-delivery="${newest}"]`).waitFor();
  });
});

describe('a hirer invites', () => {
  inBrowser('searches a chosen provider, sees who was found and how the provider answered, and invites several at once', async () => {
    // The example integrator is a suggestion provider with contacts.
    const directory = platform.url('contact-directory');
    const providerAdmin = (await platform.admin.issuePortalToken(integrator.user.id)).token;
    const provider = new PortalClient(directory, providerAdmin);
    await provider.saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
    await provider.setSuggestionsEnabled(true);

    const context = await browser.newContext();
    const page = await signIn(context, 'hana@northside.example', 'portal');
    await page.getByRole('link', { name: 'Invites' }).click();
    await page.getByLabel('Tidewater Integrations').check();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('3 contacts found.').waitFor();
    await expect(await page.getByRole('list', { name: 'Providers searched' }).textContent()).toMatch(/Tidewater Integrations: ok 3 returned/);
    await page.getByLabel('Select Ada Lovelace').check();
    await page.getByLabel('Select Grace Hopper').check();
    await expectAccessible(page, 'invites');
    await page.getByRole('button', { name: 'Invite 2 selected' }).click();
    await page.getByText('2 invitations sent.').waitFor();
    await eventually(() => smtp.to('ada@example.com').length > 0 && smtp.to('grace@example.com').length > 0, 15_000, 'both invitations e-mailed');
  });
});

describe('a sender watches an offer', () => {
  inBrowser('sees two workers’ answers arrive without reloading, then completes with the chosen one', async () => {
    const offers = new OffersClient(platform.url('offers-api'), sender.apiKey);
    const offerId = expectStatus(await offers.createOffer(offerBody(sender.user.id, workerIds, { title: 'Banqueting staff, Friday' })), 201).text;

    const context = await browser.newContext();
    const page = await signIn(context, 'sam@harbour.example', 'portal');
    await page.getByRole('link', { name: 'Banqueting staff, Friday' }).click();
    await page.getByText('0 applied of 2').waitFor();
    await expectAccessible(page, 'offer');

    expectStatus(await offers.as(workerTokens[0]).answer(offerId, 'applied'), 200);
    await page.getByText('1 applied of 2').waitFor({ timeout: 10_000 });
    expectStatus(await offers.as(workerTokens[1]).answer(offerId, 'applied'), 200);
    await page.getByText('2 applied of 2').waitFor({ timeout: 10_000 });

    await page.getByLabel('Wanda Okafor').check();
    await page.getByRole('button', { name: 'Complete with 1 chosen' }).click();
    await page.getByText('Completed with 1 worker').waitFor();
    const offer = expectStatus(await offers.getOffer(offerId), 200).json as { complete: boolean; recipients: Array<{ workerId: string; confirmation: string }> };
    expect(offer.complete).toBe(true);
    expect(Object.fromEntries(offer.recipients.map((r) => [r.workerId, r.confirmation]))).toEqual({ [workerIds[0]]: 'successful', [workerIds[1]]: 'unsuccessful' });

    await page.getByRole('link', { name: 'Offers' }).click();
    await page.getByRole('link', { name: 'Banqueting staff, Friday' }).waitFor();
    await expectAccessible(page, 'offers');
  });
});

describe('long lists, irreversible actions and pages that are not there', () => {
  const titles = Array.from({ length: 55 }, (_, i) => `Quayside shift ${i + 1}`);
  let quayside: SeededOrganisation;
  let offerIds: string[] = [];
  let senderPage: Page;
  let workerPage: Page;

  beforeAll(async () => {
    quayside = await seedOrganisation(platform.admin, { name: 'Quayside Events', kind: 'agency', workers: 0, userEmail: 'quinn@quayside.example' });
    const [pia] = await platform.admin.createWorkers(quayside.organisation.id, [{ name: 'Pia Lund', email: 'pia@workers.example' }]);
    const offers = new OffersClient(platform.url('offers-api'), quayside.apiKey);
    offerIds = [];
    for (const title of titles) offerIds.push(expectStatus(await offers.createOffer(offerBody(quayside.user.id, [pia.id], { title })), 201).text);
    senderPage = await signIn(await browser.newContext(), 'quinn@quayside.example', 'portal');
    workerPage = await signIn(await browser.newContext(), 'pia@workers.example', 'worker');
  }, 120_000);

  inBrowser('pages through the offers to the 45th and beyond, and back', async () => {
    const page = senderPage;
    await page.getByRole('link', { name: 'Quayside shift 55', exact: true }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(20);
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByRole('link', { name: 'Quayside shift 35', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Older' }).click();
    // The 45th offer, newest first, then the oldest.
    await page.getByRole('link', { name: 'Quayside shift 11', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Quayside shift 1', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByRole('link', { name: 'Quayside shift 35', exact: true }).waitFor();
  });

  inBrowser('withdraws only once asked to confirm, never completes with nobody chosen, and filters by status', async () => {
    const page = senderPage;
    await page.goto(`${portal.url}/offers/${offerIds[54]}`);
    await page.getByRole('heading', { name: 'Quayside shift 55' }).waitFor();
    expect(await page.getByRole('button', { name: 'Complete with 0 chosen' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Withdraw offer' }).click();
    const ask = page.getByRole('group', { name: 'Withdraw this offer?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    const offers = new OffersClient(platform.url('offers-api'), quayside.apiKey);
    expect((expectStatus(await offers.getOffer(offerIds[54]), 200).json as { widthdrawn: boolean }).widthdrawn).toBe(false);
    await page.getByRole('button', { name: 'Withdraw offer' }).click();
    await expectAccessible(page, 'offer-withdraw');
    await ask.getByRole('button', { name: 'Yes, withdraw' }).click();
    await page.getByText('Withdrawn; the recipients have been told.').waitFor();
    expect((expectStatus(await offers.getOffer(offerIds[54]), 200).json as { widthdrawn: boolean }).widthdrawn).toBe(true);

    await page.getByRole('link', { name: 'Offers' }).click();
    await page.getByLabel('Status').selectOption('withdrawn');
    await eventually(async () => (await page.locator('tbody tr').count()) === 1, 10_000, 'only the withdrawn offer');
    await page.getByRole('link', { name: 'Quayside shift 55', exact: true }).waitFor();
    await page.getByLabel('Status').selectOption('open');
    await page.getByRole('link', { name: 'Quayside shift 54', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Quayside shift 55', exact: true }).count()).toBe(0);
  });

  inBrowser('shows a missing offer and an unknown page as not found, with a way back', async () => {
    const page = senderPage;
    await page.goto(`${portal.url}/offers/0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b`);
    await page.getByRole('heading', { name: 'Offer not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to the offers' }).click();
    await page.getByRole('link', { name: 'Quayside shift 54', exact: true }).waitFor();

    const answer = await page.goto(`${portal.url}/nope`);
    expect(answer?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await expectAccessible(page, 'not-found');
    await page.getByRole('link', { name: 'Back to the start' }).click();
    await page.getByRole('heading', { name: 'Offers' }).waitFor();
  });

  inBrowser('sends a signed-in worker to their own pages, and pages through their offers past the first 50', async () => {
    const page = workerPage;
    await page.goto(`${portal.url}/offers`);
    await page.getByRole('heading', { name: 'Your offers' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/worker');
    await page.getByRole('link', { name: 'Quayside shift 54', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: /^Quayside shift/ }).count()).toBe(50);
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByRole('link', { name: 'Quayside shift 1', exact: true }).waitFor();

    await page.goto(`${portal.url}/worker/offers/0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b`);
    await page.getByRole('heading', { name: 'Offer not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to your offers' }).click();
    await page.getByRole('heading', { name: 'Your offers' }).waitFor();
  });
});

describe('a worker on a phone', () => {
  inBrowser('signs in by link, sees the offer and applies', async () => {
    const offers = new OffersClient(platform.url('offers-api'), sender.apiKey);
    const offerId = expectStatus(await offers.createOffer(offerBody(sender.user.id, [workerIds[1]], { title: 'Kitchen porter, Saturday' })), 201).text;

    // A worker far from the server: times are theirs, and say whose.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, timezoneId: 'Pacific/Auckland' });
    const page = await signIn(context, workerEmails[1], 'worker');
    await page.getByRole('heading', { name: 'Your offers' }).waitFor();
    const card = page.locator('li.card').filter({ hasText: 'Kitchen porter, Saturday' });
    await card.getByText('From Harbour Staffing').waitFor();
    await page.getByText('Times are in your time zone, Pacific/Auckland.').waitFor();
    await expectAccessible(page, 'worker-offers');
    await page.getByRole('link', { name: 'Kitchen porter, Saturday' }).tap();
    await page.getByRole('button', { name: 'Apply' }).waitFor();
    await page.getByText('From Harbour Staffing').waitFor();
    const slot = (await page.getByRole('list', { name: 'When' }).locator('time').first().getAttribute('datetime')) as string;
    const inAuckland = new Date(slot).toLocaleString('en-US', { timeZone: 'Pacific/Auckland', timeZoneName: 'short' }).split(' ').at(-1) as string;
    await expect(await page.getByRole('list', { name: 'When' }).textContent()).toContain(inAuckland);
    await expectAccessible(page, 'worker-offer');
    await page.getByRole('button', { name: 'Apply' }).tap();
    await page.getByText('You applied.').waitFor();
    const seen = expectStatus(await offers.getOffer(offerId), 200).json as { recipients: Array<{ response: string }> };
    expect(seen.recipients[0].response).toBe('applied');
    // The answer can be changed while the offer is open.
    expect(await page.getByRole('button', { name: 'Apply' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Change your answer' }).tap();
    await page.getByRole('button', { name: 'Reject' }).tap();
    await page.getByText('You turned this offer down.').waitFor();
    const changed = expectStatus(await offers.getOffer(offerId), 200).json as { recipients: Array<{ response: string }> };
    expect(changed.recipients[0].response).toBe('rejected');
    // Nothing on the page is wider than the phone.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    await page.getByRole('link', { name: 'Notifications' }).tap();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await expectAccessible(page, 'worker-notifications');
    await page.getByRole('link', { name: 'Contacts' }).tap();
    await page.getByText('Tidewater Integrations').waitFor();
    await expectAccessible(page, 'worker-contacts');
  });

  inBrowser('installs as an app: a web manifest for /worker, and an offline page when the network is down', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await signIn(context, workerEmails[0], 'worker');
    await page.getByRole('heading', { name: 'Your offers' }).waitFor();
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = expectStatus(await request<Record<string, unknown>>(portal.url, 'GET', href as string), 200).json;
    expect(manifest).toMatchObject({ name: expect.any(String), start_url: '/worker', display: 'standalone' });
    for (const icon of manifest.icons as Array<{ src: string; sizes: string; type: string }>) {
      const file = await request(portal.url, 'GET', icon.src);
      expect([icon.sizes, file.status, file.headers.get('content-type')]).toEqual([icon.sizes, 200, icon.type]);
    }
    expect((manifest.icons as Array<{ sizes: string }>).map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));

    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await context.setOffline(true);
    await page.goto(`${portal.url}/worker/contacts`);
    await page.getByRole('heading', { name: 'You are offline' }).waitFor();
    await expectAccessible(page, 'worker-offline');
    await context.setOffline(false);
    await page.getByRole('link', { name: 'your offers' }).tap();
    await page.getByRole('heading', { name: 'Your offers' }).waitFor();
    await context.close();
  });

  it('checked every page of the portal with axe', () => {
    expect(pagesChecked.sort()).toEqual(
      [
        'company-profile',
        'company-profile-failed',
        'invites',
        'not-found',
        'webhooks-after-outage',
        'offer',
        'offer-withdraw',
        'offers',
        'sign-in',
        'signing-keys',
        'webhooks',
        'webhooks-delivery',
        'webhooks-redeliver-confirm',
        'worker-contacts',
        'worker-notifications',
        'worker-offer',
        'worker-offers',
        'worker-offline',
      ].sort(),
    );
  });
});
