import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  issuePortalUserToken,
  offerBody,
  OffersClient,
  PortalClient,
  request,
  seedOrganisation,
  type SeededOrganisation,
  WorkerContactsClient,
} from '@availability/platform-client';
import { eventually, freePort, SmtpSink, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';

/**
 * The whole journey across every service, each running as its own process, driven over HTTP as
 * users would: an integrator registers its service, a sender offers work to workers with devices,
 * workers answer, the integrator receives signed webhooks, the sender completes one offer and
 * withdraws another, a worker adds a contact, a hirer searches suggestions and invites someone.
 */
const INTEGRATOR_SECRET = 'journey-integrator-secret-0123456789';
const NOTIFY_ADDRESS = 'bookings@example.com';

interface Received {
  count: number;
  duplicates: number;
  items: Array<{ webhookId: string; method: string; path: string; body: string }>;
}
interface PushLog {
  pushes: Array<{ token: string; kind: string; offerId: string; eventId: string; success: boolean }>;
}

let platform: TestPlatform;
let mail: SmtpSink;
let org: SeededOrganisation;
let sender: OffersClient;
let portal: PortalClient;
const tokens: string[] = [];

const received = async () => (await request<Received>(platform.url('example-integrator'), 'GET', '/received')).json;
const pushes = async (offerId: string) =>
  (await request<PushLog>(platform.url('notification-service'), 'GET', `/dev/push-log?offerId=${offerId}`)).json.pushes;

beforeAll(async () => {
  mail = new SmtpSink();
  const smtpPort = await freePort();
  await mail.listen(smtpPort);
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'], {
    INTEGRATOR_SECRET,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    EMAIL_DIGEST_WINDOW_MS: '1000',
    WEBHOOK_BACKOFF_BASE_MS: '200',
  });
  org = await seedOrganisation(platform.admin, { name: 'Journey Staffing', workers: 3, userEmail: 'boss@journey.example' });
  sender = new OffersClient(platform.url('offers-api'), org.apiKey);
  const portalToken = await issuePortalUserToken(platform.url('contact-directory'), TEST_ADMIN_TOKEN, org.user.id);
  portal = new PortalClient(platform.url('contact-directory'), portalToken.token);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await mail?.close();
});

describe('the platform end to end', () => {
  it('an integrator registers its base URL; /test and /test/auth pass', async () => {
    const profile = await portal.saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
    expect(profile).toMatchObject({ baseUrl: platform.url('example-integrator'), secretSet: true });
  });

  it('workers register their phones', async () => {
    for (const [index, worker] of org.workers.entries()) {
      const token = `journey-device-${index}`;
      const result = await request(platform.url('notification-service'), 'PUT', '/worker/devices', {
        body: { token, platform: index % 2 === 0 ? 'android' : 'ios', appVersion: '1.0.0' },
        headers: { authorization: `Bearer ${worker.token}` },
      });
      expect(result.status).toBe(201);
      tokens.push(token);
    }
  });

  let offerId: string;

  it('a sender offers work; every worker gets a push', async () => {
    const created = await sender.createOffer(offerBody(org.user.id, org.workers.map((w) => w.id), { notifyEmailAddress: NOTIFY_ADDRESS }));
    expect(created.status).toBe(201);
    offerId = created.text;
    const sent = await eventually(async () => {
      const found = await pushes(offerId);
      return found.length === 3 && found;
    }, 15_000, 'three pushes');
    expect(sent.map((p) => p.token).sort()).toEqual([...tokens].sort());
    expect(sent.every((p) => p.kind === 'offer.created' && p.success)).toBe(true);
  });

  it('workers apply and reject; the integrator receives verified Worker Offer Response webhooks', async () => {
    const worker = (index: number) => new OffersClient(platform.url('offers-api'), org.workers[index].token);
    expect((await worker(0).answer(offerId, 'applied')).status).toBe(200);
    expect((await worker(1).answer(offerId, 'rejected')).status).toBe(200);
    const responses = await eventually(async () => {
      const items = (await received()).items.filter((item) => item.path === '/offer/response');
      return items.length === 2 && items;
    }, 15_000, 'two webhooks');
    const bodies = responses.map((item) => JSON.parse(item.body) as Record<string, string>);
    expect(bodies.map((b) => [b.workerId, b.response]).sort()).toEqual(
      [
        [org.workers[0].id, 'applied'],
        [org.workers[1].id, 'rejected'],
      ].sort(),
    );
    for (const body of bodies) {
      expect(Object.keys(body)).toEqual(['eventId', 'offerId', 'workerId', 'response', 'respondedAt']);
      expect(body.offerId).toBe(offerId);
    }
    const offer = (await sender.getOffer(offerId)).json;
    expect(offer.recipients.map((r) => r.response)).toEqual(['applied', 'rejected', 'awaiting']);
  });

  it('the sender completes the offer; every worker is told whether they were successful', async () => {
    expect((await sender.complete(offerId, [org.workers[0].id])).status).toBe(204);
    const told = await eventually(async () => {
      const found = (await pushes(offerId)).filter((p) => p.kind !== 'offer.created');
      return found.length === 3 && found;
    }, 15_000, 'completion pushes');
    const kindByToken = Object.fromEntries(told.map((p) => [p.token, p.kind]));
    expect(kindByToken).toEqual({ [tokens[0]]: 'offer.successful', [tokens[1]]: 'offer.unsuccessful', [tokens[2]]: 'offer.unsuccessful' });
    expect((await sender.getOffer(offerId)).json).toMatchObject({ complete: true, isHistoric: true });
  });

  it('the offer’s notify address is e-mailed', async () => {
    await eventually(() => mail.to(NOTIFY_ADDRESS).length > 0, 15_000, 'an e-mail to the notify address');
  });

  it('another offer is withdrawn; every original worker is told', async () => {
    const created = await sender.createOffer(offerBody(org.user.id, org.workers.map((w) => w.id)));
    expect(created.status).toBe(201);
    expect((await sender.withdraw(created.text)).status).toBe(200);
    const withdrawn = await eventually(async () => {
      const found = (await pushes(created.text)).filter((p) => p.kind === 'offer.withdrawn');
      return found.length === 3 && found;
    }, 15_000, 'withdrawal pushes');
    expect(withdrawn.map((p) => p.token).sort()).toEqual([...tokens].sort());
  });

  it('a worker adds a contact at the integrator’s organisation; the integrator is told', async () => {
    const worker = org.workers[2];
    expect(await new WorkerContactsClient(platform.url('contact-directory'), worker.token).addContact(org.organisation.id)).toBe(true);
    await eventually(async () => (await received()).items.some((item) => item.method === 'GET' && item.path === `/contact/new/${worker.id}`), 15_000, 'contact webhook');
  });

  it('a hirer searches contact suggestions and invites one; the invitation is e-mailed', async () => {
    await portal.setSuggestionsEnabled(true);
    const search = await portal.searchSuggestions({});
    const ada = search.suggestions.find((s) => s.emailAddress === 'ada@example.com');
    expect(ada).toBeDefined();
    const [invitation] = await portal.invite([{ name: 'Ada Lovelace', emailAddress: 'ada@example.com', suggestedByOrganisationId: org.organisation.id }]);
    expect(invitation.created).toBe(true);
    await eventually(() => mail.to('ada@example.com').length === 1, 15_000, 'the invitation e-mail');
  });

  it('nothing was delivered twice', async () => {
    const all = await received();
    expect(all.duplicates).toBe(0);
    expect(new Set(all.items.map((item) => item.webhookId)).size).toBe(all.items.length);
    const log = await request<PushLog>(platform.url('notification-service'), 'GET', '/dev/push-log');
    const keys = log.json.pushes.map((p) => `${p.eventId}/${p.token}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
