import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectStatus, offerBody, OffersClient, PortalClient, seedOrganisation, type SeededOrganisation, WorkerContactsClient } from '@availability/platform-client';
import { eventually, freePort, linksIn, type ServiceProcess, SmtpSink, startTestPlatform, startTestPortal, TestIntegrator, type TestPlatform } from '@availability/testing';
import { launchChromium, pageOverflow, pageProblems, PORTAL_VIEWPORTS, signInByEmailedLink } from '../src/browser.js';

/**
 * The portal with the text people really send: words too long for any column, right-to-left
 * scripts, emoji and strings that look like markup, on a desktop and on a phone. Then what the
 * pages around invitations and the company profile say and allow, as the person using them sees it.
 */
const OWN_SECRET = 'portal-real-text-own-service-secret-0123';
const INTEGRATOR_SECRET = 'portal-real-text-integrator-secret-0123';

/** An unbroken word of `length` letters: no space, hyphen or other place to break it. */
const word = (length: number) => 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(Math.ceil(length / 45)).slice(0, length);
const ARABIC = 'مناوبة مطبخ ليلية في المطعم الرئيسي، يرجى الحضور قبل الموعد بعشر دقائق';
const HEBREW = 'משמרת לילה במטבח הראשי';
const EMOJI = '🍳👩‍🍳🌙🇳🇴 shift';
const MARKUP = '<b>x</b> <script>alert(1)</script> &amp; {{title}}';
const TITLE = word(200);
const DETAILS = [word(1500), word(300), ARABIC, HEBREW, EMOJI, MARKUP].join(' ');

const VIEWPORTS = Object.values(PORTAL_VIEWPORTS);

let platform: TestPlatform;
let portal: ServiceProcess;
let smtp: SmtpSink;
let own: TestIntegrator;
let browser: Browser;
let agency: SeededOrganisation;
let hirer: SeededOrganisation;
let offerIds: string[] = [];
const workerEmail = 'rania@workers.example';

/** Signs in as the owner of `email` by the e-mailed link, and waits for the page it lands on. */
async function signIn(context: BrowserContext, email: string, audience: 'portal' | 'worker'): Promise<Page> {
  const page = await signInByEmailedLink(context, portal.url, smtp, email, audience);
  await page.getByRole('heading', { name: audience === 'worker' ? 'Your offers' : 'Offers' }).waitFor();
  return page;
}

async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await pageProblems(page, name)).toEqual([]);
}

beforeAll(async () => {
  smtp = await SmtpSink.start();
  own = await TestIntegrator.start({ secret: OWN_SECRET, answer: () => ({ status: 200, body: '{}', contentType: 'application/json' }) });
  const portalPort = await freePort();
  // No INVITE_LINK_URL: invitations link to the portal's own join page.
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'], {
    SMTP_URL: smtp.url,
    PORTAL_URL: `http://localhost:${portalPort}`,
    TRUST_PROXY: '127.0.0.1',
    INTEGRATOR_SECRET,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  portal = await startTestPortal(platform, portalPort);

  agency = await seedOrganisation(platform.admin, { name: `${word(150)} ${HEBREW}`, kind: 'agency', workers: 0, userEmail: 'amal@longtext.example' });
  await platform.admin.createUser(agency.organisation.id, { email: 'mo@longtext.example', name: 'Mo Member', role: 'member' });
  hirer = await seedOrganisation(platform.admin, { name: `${ARABIC.slice(0, 40)} ${EMOJI}`, kind: 'hirer', workers: 0, userEmail: 'hadi@hirer.example' });
  const [worker] = await platform.admin.createWorkers(agency.organisation.id, [{ name: `${word(180)} رانيا`, email: workerEmail }]);
  const offers = new OffersClient(platform.url('offers-api'), agency.apiKey);
  offerIds = [];
  for (const title of [TITLE, `${ARABIC.slice(0, 60)} ${EMOJI}`, MARKUP]) {
    offerIds.push(expectStatus(await offers.createOffer(offerBody(agency.user.id, [worker.id], { title, details: DETAILS })), 201).text);
  }
  expectStatus(await offers.as(worker.token).answer(offerIds[0], 'applied'), 200);
  await new WorkerContactsClient(platform.url('contact-directory'), worker.token).addContact(hirer.organisation.id);
  // The example integrator offers hirers suggestions.
  const integrator = await seedOrganisation(platform.admin, { name: 'Suggesting Integrations', kind: 'integrator', workers: 0 });
  const provider = new PortalClient(platform.url('contact-directory'), (await platform.admin.issuePortalToken(integrator.user.id)).token);
  await provider.saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
  await provider.setSuggestionsEnabled(true);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await platform?.stop();
  own?.close();
  await smtp?.close();
});

describe('the company profile', () => {
  it('says a profile was never saved, shows an agency no suggestions switch, and shows a member the profile read-only', async () => {
    const page = await signIn(await browser.newContext(), 'amal@longtext.example', 'portal');
    await page.goto(`${portal.url}/profile`);
    await page.getByRole('heading', { name: 'Your service' }).waitFor();
    await page.getByText('Not saved yet.').waitFor();
    expect(await page.getByText('Saved —').count()).toBe(0);
    // The secret's limits are the API's, told before anything is sent.
    const secret = page.getByLabel('Secret', { exact: true });
    expect([await secret.getAttribute('minlength'), await secret.getAttribute('maxlength')]).toEqual(['16', '256']);
    await page.getByText('16 to 256 characters').waitFor();

    await page.getByLabel('Base service address').fill(`${own.url}/${word(300)}`);
    await secret.fill(OWN_SECRET);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByText('Saved: your service answered').waitFor();
    // Only integrators (and organisations an operator approved) offer suggestions.
    expect(await page.getByRole('heading', { name: 'Contact suggestions' }).count()).toBe(0);
    await expectAccessible(page, 'company-profile');

    const member = await signIn(await browser.newContext(), 'mo@longtext.example', 'portal');
    await member.goto(`${portal.url}/profile`);
    await member.getByText('Only an admin of').waitFor();
    await member.getByRole('heading', { name: 'Your service' }).waitFor();
    expect(await member.getByLabel('Base service address').isEditable()).toBe(false);
    expect(await member.getByRole('button', { name: 'Check and save' }).count()).toBe(0);
    expect(await member.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await expectAccessible(member, 'company-profile-member');
  });
});

describe('real text', () => {
  it('fits every page on a desktop and on a phone', async () => {
    // The endpoint's address is real text too (saved again if the profile test ran first).
    const amal = new PortalClient(platform.url('contact-directory'), (await platform.admin.issuePortalToken(agency.user.id)).token);
    await amal.saveWebhook(`${own.url}/${word(300)}`, OWN_SECRET);
    const sender = await signIn(await browser.newContext(), 'amal@longtext.example', 'portal');
    const hirerPage = await signIn(await browser.newContext(), 'hadi@hirer.example', 'portal');
    const worker = await signIn(await browser.newContext(), workerEmail, 'worker');
    const pages: Array<[Page, string, string]> = [
      [sender, '/offers', TITLE],
      [sender, `/offers/${offerIds[0]}`, ARABIC],
      [sender, `/offers/${offerIds[2]}`, MARKUP],
      [sender, '/webhooks', word(300)],
      [sender, '/profile', 'Your service'],
      [hirerPage, '/invites', 'Find people to invite'],
      [hirerPage, '/nope', 'Page not found'],
      [worker, '/worker', TITLE],
      [worker, `/worker/offers/${offerIds[0]}`, HEBREW],
      [worker, '/worker/notifications', 'Notifications'],
      [worker, '/worker/contacts', EMOJI],
      [worker, '/join?invite=0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b', 'sign in'],
    ];
    const found: string[] = [];
    for (const viewport of VIEWPORTS) {
      for (const [page, path, shows] of pages) {
        await page.setViewportSize(viewport);
        await page.goto(`${portal.url}${path}`);
        await page
          .getByText(shows)
          .first()
          .waitFor()
          .catch(async (error: Error) => {
            throw new Error(`${path} at ${viewport.width} never showed what it holds (${page.url()}): ${(await page.locator('main').textContent())?.slice(0, 300)}\n${error.message}`);
          });
        await page.waitForLoadState('networkidle');
        for (const what of await pageOverflow(page)) found.push(`${path} at ${viewport.width}: ${what}`);
      }
      // The hirer's search results too.
      await hirerPage.goto(`${portal.url}/invites`);
      await hirerPage.getByLabel('Suggesting Integrations').check();
      await hirerPage.getByRole('button', { name: 'Search' }).click();
      await hirerPage.getByText(/contacts found/).waitFor();
      for (const what of await pageOverflow(hirerPage)) found.push(`/invites results at ${viewport.width}: ${what}`);
    }
    // The markup-like title is shown as text, never run.
    await sender.goto(`${portal.url}/offers/${offerIds[2]}`);
    await sender.getByRole('heading', { name: MARKUP }).waitFor();
    expect(found).toEqual([]);
  });
});

describe('right-to-left text', () => {
  it('reads right to left wherever a person’s text is shown: titles, details, names', async () => {
    const sender = await signIn(await browser.newContext(), 'amal@longtext.example', 'portal');
    const worker = await signIn(await browser.newContext(), workerEmail, 'worker');
    const arabic = ARABIC.slice(0, 20);
    const pages: Array<[Page, string, string]> = [
      [sender, '/offers', arabic],
      [sender, `/offers/${offerIds[1]}`, arabic],
      [worker, '/worker', arabic],
      [worker, `/worker/offers/${offerIds[1]}`, arabic],
      [worker, '/worker/contacts', arabic],
    ];
    const leftToRight: string[] = [];
    for (const [page, path, text] of pages) {
      await page.goto(`${portal.url}${path}`);
      const shown = page.getByText(text);
      await shown.first().waitFor();
      // Each element whose text begins in a right-to-left script, as the browser sets it (one that begins
      // with a Latin word stays left to right): right to left only where its direction is auto (or rtl).
      const directions = await shown.evaluateAll((elements) =>
        elements
          .map((element) => element as unknown as { textContent: string | null; matches(selector: string): boolean })
          .filter((element) => /^[\u0590-\u08FF]/.test((element.textContent ?? '').trim()))
          .map((element) => (element.matches(':dir(rtl)') ? 'rtl' : 'ltr')),
      );
      if (directions.length === 0 || directions.includes('ltr')) leftToRight.push(`${path}: ${directions.join(', ') || 'no element begins with the text'}`);
    }
    expect(leftToRight).toEqual([]);
  });
});

describe('invitations', () => {
  it('invites by name and address, links to the portal’s join page, and says plainly when nobody new was invited', async () => {
    const page = await signIn(await browser.newContext(), 'hadi@hirer.example', 'portal');
    await page.getByRole('link', { name: 'Invites' }).click();
    const byAddress = page.getByRole('form', { name: 'Invite someone by e-mail' });
    await byAddress.getByLabel('Name').fill('Lena Fischer');
    await byAddress.getByLabel('E-mail address').fill('lena@invited.example');
    await byAddress.getByRole('button', { name: 'Invite' }).click();
    await byAddress.getByText('1 invitation sent.').waitFor();
    const mail = await eventually(() => smtp.to('lena@invited.example')[0] ?? false, 15_000, 'the invitation');
    const link = linksIn(mail.text).find((found) => found.includes('invite='));
    expect(link).toMatch(new RegExp(`^${portal.url}/join\\?invite=`));

    // Again: nothing sent, said as a warning rather than a success.
    await byAddress.getByRole('button', { name: 'Invite' }).click();
    const outcome = byAddress.getByText('0 invitations sent; 1 already invited.');
    await outcome.waitFor();
    expect(await outcome.getAttribute('class')).toMatch(/\bnote\b/);

    // A name the platform refuses: its words once, without the API's field names.
    await byAddress.getByLabel('Name').fill('R2-D2 <b>');
    await byAddress.getByLabel('E-mail address').fill('r2@invited.example');
    await byAddress.getByRole('button', { name: 'Invite' }).click();
    const refusal = (await byAddress.getByRole('alert').textContent()) as string;
    expect(refusal).not.toMatch(/invitations\[0\]|^\S+: |see errors/);
    const sentences = refusal.split(/(?<=\.) /);
    expect(new Set(sentences).size).toBe(sentences.length);

    // Suggestions already invited are marked once the invitations are sent.
    await page.getByLabel('Suggesting Integrations').check();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/contacts found/).waitFor();
    await page.getByLabel('Select Ada Lovelace').check();
    await page.getByRole('button', { name: 'Invite 1 selected' }).click();
    await page.getByText('1 invitation sent.').waitFor();
    await page.getByLabel('Select Ada Lovelace').check();
    await page.getByRole('button', { name: 'Invite 1 selected' }).click();
    await page.getByText('0 invitations sent; 1 already invited.').waitFor();
    await page.locator('li.person').filter({ hasText: 'Ada Lovelace' }).getByText('Already invited').waitFor();

    // The invited person opens the link: what happens next, and the worker sign-in.
    const invited = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await invited.goto(link as string);
    await invited.getByRole('heading', { name: /invited/ }).waitFor();
    await expectAccessible(invited, 'join');
    await invited.getByRole('link', { name: 'Sign in to the worker app' }).click();
    await invited.getByRole('heading', { name: /Sign in/ }).waitFor();
    expect(new URL(invited.url()).pathname).toBe('/worker/sign-in');
  });
});

describe('forms tell their limits', () => {
  it('bounds the date pickers to what the API takes, and removes the webhook only once confirmed', async () => {
    const page = await signIn(await browser.newContext(), 'amal@longtext.example', 'portal');
    await page.goto(`${portal.url}/webhooks`);
    // A redelivery reaches back 30 days at most, and neither picker takes a time to come.
    const since = page.getByLabel('Failed since', { exact: true });
    const [min, max] = [await since.getAttribute('min'), await since.getAttribute('max')];
    expect(Math.round((Date.parse(max ?? '') - Date.parse(min ?? '')) / 86_400_000)).toBe(30);
    expect(Math.abs(Date.parse((await page.getByLabel('Since', { exact: true }).getAttribute('max')) ?? '') - Date.parse(max ?? ''))).toBeLessThanOrEqual(60_000);

    await page.goto(`${portal.url}/profile`);
    await page.getByRole('button', { name: 'Remove' }).click();
    const ask = page.getByRole('group', { name: 'Remove your service?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Remove' }).click();
    await ask.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByText('Removed: the platform no longer calls your service.').waitFor();
    await page.getByText('Not saved yet.').waitFor();
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
  });
});
