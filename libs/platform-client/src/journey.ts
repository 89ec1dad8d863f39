import { deepStrictEqual, ok } from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DirectoryAdminClient, seedOrganisation, type SeededOrganisation } from './directory-admin.client.js';
import { request } from './http.js';
import { offerBody, OffersClient } from './offers.client.js';
import { issuePortalUserToken, PortalClient, WorkerContactsClient } from './portal.client.js';

/**
 * The whole journey of the platform, as its users live it, across every service:
 * an integrator registers its service, a sender offers work to workers with devices, workers answer,
 * the integrator receives signed webhooks, the sender completes one offer and withdraws another, a
 * worker adds a contact, a hirer searches suggestions and invites someone.
 *
 * Each step acts (as a user would, over HTTP) and then verifies what should follow, waiting for the
 * asynchronous parts (pushes, webhooks, e-mail). The e2e tests run these steps against services they
 * start; the restart test stops services between acting and verifying; `npm run demo` runs them
 * against the platform `npm start` runs and prints each one.
 */
export interface JourneyEnvironment {
  urls: {
    contactDirectory: string;
    offersApi: string;
    notificationService: string;
    /** Where this process reaches the example integrator (to read what it received). */
    exampleIntegrator: string;
  };
  /** The base URL the platform calls the integrator at (differs from the above inside docker compose). */
  integratorBaseUrl: string;
  integratorSecret: string;
  adminToken: string;
  /** How many e-mails have arrived for an address. */
  mailCount(address: string): Promise<number>;
  /** How long to wait for each asynchronous outcome. */
  waitMs?: number;
}

export interface JourneyStep {
  title: string;
  /** What a user does. */
  act(): Promise<void>;
  /** Waits for and checks what must follow; returns a line saying what was seen. */
  verify(): Promise<string>;
}

interface ReceivedWebhook {
  webhookId: string;
  method: string;
  path: string;
  body: string;
  /** How many times the platform delivered it (the integrator acts on the first only). */
  deliveries: number;
}

interface RecordedPush {
  token: string;
  kind: string;
  offerId: string;
  eventId: string;
  success: boolean;
}

const NOTIFY_ADDRESS = 'bookings@example.com';
const SUGGESTED_CONTACT = { name: 'Ada Lovelace', emailAddress: 'ada@example.com' };
const WORKERS = 3;

export class Journey {
  private org!: SeededOrganisation;
  private sender!: OffersClient;
  private portal!: PortalClient;
  private readonly deviceTokens: string[] = [];
  private completedOfferId = '';
  private withdrawnOfferId = '';
  private notifyMailsBefore = 0;
  private inviteMailsBefore = 0;
  /** Every webhook id this journey caused, to prove none arrived twice. */
  private readonly webhookIds: string[] = [];

  readonly steps: JourneyStep[];

  /** `environment` is read when the first step runs, so tests can declare the steps before starting services. */
  constructor(private readonly environment: JourneyEnvironment | (() => JourneyEnvironment)) {
    this.steps = [
      this.step('An organisation joins: a sender, three workers and an API key', this.seed),
      this.step('The integrator registers its base URL; the platform calls /test and /test/auth', this.registerIntegrator),
      this.step('Workers register their phones', this.registerDevices),
      { title: 'A sender offers work to the three workers; each phone gets a push', act: () => this.createOffer(), verify: () => this.offerPushed() },
      { title: 'Workers apply and reject; the integrator receives signed Worker Offer Response webhooks', act: () => this.answer(), verify: () => this.answersDelivered() },
      { title: 'The sender completes the offer; each worker is told whether they got the work', act: () => this.complete(), verify: () => this.completionPushed() },
      { title: 'The offer’s notify address is e-mailed of what happened to it', act: async () => undefined, verify: () => this.notifyMailed() },
      { title: 'Another offer is withdrawn; every worker it went to is told', act: () => this.withdraw(), verify: () => this.withdrawalPushed() },
      { title: 'A worker adds the organisation as a contact; the integrator is told', act: () => this.addContact(), verify: () => this.contactDelivered() },
      { title: 'A hirer searches contact suggestions and invites one; the invitation is e-mailed', act: () => this.invite(), verify: () => this.inviteMailed() },
      this.step('Nothing was delivered twice', this.noDuplicates),
    ];
  }

  private get env(): JourneyEnvironment {
    return typeof this.environment === 'function' ? this.environment() : this.environment;
  }

  /** Runs every step in order, telling `report` about each as it completes. */
  async run(report: (index: number, step: JourneyStep, seen: string, ms: number) => void = () => undefined): Promise<void> {
    for (const [index, step] of this.steps.entries()) {
      const started = Date.now();
      try {
        await step.act();
        report(index, step, await step.verify(), Date.now() - started);
      } catch (error) {
        throw new Error(`step ${index + 1}, ${step.title}: ${(error as Error).message}`, { cause: error });
      }
    }
  }

  /** A step whose effect is synchronous: acting is verifying. */
  private step(title: string, run: () => Promise<string>): JourneyStep {
    let seen = '';
    return {
      title,
      act: async () => {
        seen = await run.call(this);
      },
      verify: async () => seen,
    };
  }

  private async seed(): Promise<string> {
    const admin = new DirectoryAdminClient(this.env.urls.contactDirectory, this.env.adminToken);
    const name = `Journey Staffing ${new Date().toISOString().slice(0, 19)}`;
    this.org = await seedOrganisation(admin, { name, workers: WORKERS, userEmail: `boss+${Date.now()}@journey.example` });
    // The organisation is also its own integrator and offers contact suggestions: an operator vouches for it.
    await admin.approveSuggestionProvider(this.org.organisation.id);
    this.sender = new OffersClient(this.env.urls.offersApi, this.org.apiKey);
    const portalToken = await issuePortalUserToken(this.env.urls.contactDirectory, this.env.adminToken, this.org.user.id);
    this.portal = new PortalClient(this.env.urls.contactDirectory, portalToken.token);
    return `organisation ${this.org.organisation.id} (${name}), workers ${this.org.workers.map((w) => w.id).join(', ')}`;
  }

  private async registerIntegrator(): Promise<string> {
    const profile = await this.portal.saveWebhook(this.env.integratorBaseUrl, this.env.integratorSecret);
    deepStrictEqual({ baseUrl: profile.baseUrl, secretSet: profile.secretSet }, { baseUrl: this.env.integratorBaseUrl, secretSet: true });
    return `saved ${profile.baseUrl} after GET /test and GET /test/auth answered 200`;
  }

  private async registerDevices(): Promise<string> {
    for (const [index, worker] of this.org.workers.entries()) {
      const token = `journey-${this.org.organisation.id.slice(0, 8)}-device-${index}`;
      const platform = index % 2 === 0 ? 'android' : 'ios';
      const result = await request(this.env.urls.notificationService, 'PUT', '/worker/devices', {
        body: { token, platform, appVersion: '1.0.0' },
        headers: { authorization: `Bearer ${worker.token}` },
      });
      deepStrictEqual(result.status, 201, `registering a device: ${result.text}`);
      this.deviceTokens.push(token);
    }
    return `${this.deviceTokens.length} devices (android and ios)`;
  }

  private async createOffer(): Promise<void> {
    const body = offerBody(this.org.user.id, this.workerIds(), { notifyEmailAddress: NOTIFY_ADDRESS });
    this.notifyMailsBefore = await this.env.mailCount(NOTIFY_ADDRESS);
    const created = await this.sender.createOffer(body);
    deepStrictEqual(created.status, 201, `POST /offer: ${created.text}`);
    this.completedOfferId = created.text;
    const offer = (await this.sender.getOffer(this.completedOfferId)).json;
    deepStrictEqual(
      { isHistoric: offer.isHistoric, widthdrawn: offer.widthdrawn, complete: offer.complete, responses: offer.recipients.map((r) => r.response) },
      { isHistoric: false, widthdrawn: false, complete: false, responses: ['awaiting', 'awaiting', 'awaiting'] },
    );
  }

  private async offerPushed(): Promise<string> {
    const sent = await this.waitFor('a push to each phone', async () => {
      const found = await this.pushes(this.completedOfferId);
      return found.length === WORKERS && found;
    });
    deepStrictEqual(sent.map((p) => p.token).sort(), [...this.deviceTokens].sort());
    ok(sent.every((p) => p.kind === 'offer.created' && p.success), 'every push is offer.created and was accepted');
    return `offer ${this.completedOfferId}: ${sent.length} pushes (offer.created) handed to the push transport`;
  }

  private async answer(): Promise<void> {
    deepStrictEqual((await this.worker(0).answer(this.completedOfferId, 'applied')).status, 200);
    deepStrictEqual((await this.worker(1).answer(this.completedOfferId, 'rejected')).status, 200);
    const offer = (await this.sender.getOffer(this.completedOfferId)).json;
    deepStrictEqual(offer.recipients.map((r) => r.response), ['applied', 'rejected', 'awaiting']);
  }

  private async answersDelivered(): Promise<string> {
    const responses = await this.waitFor('two Worker Offer Response webhooks', async () => {
      const items = (await this.received()).filter((item) => item.path === '/offer/response' && this.bodyOf(item).offerId === this.completedOfferId);
      return items.length >= 2 && items;
    });
    const bodies = responses.map((item) => this.bodyOf(item));
    deepStrictEqual(
      bodies.map((b) => `${b.workerId} ${b.response}`).sort(),
      [`${this.org.workers[0].id} applied`, `${this.org.workers[1].id} rejected`].sort(),
    );
    for (const body of bodies) deepStrictEqual(Object.keys(body), ['eventId', 'offerId', 'workerId', 'response', 'respondedAt', 'sequence']);
    // Each worker answered once: the first answer of each (offer, worker).
    deepStrictEqual(bodies.map((body) => (body as { sequence?: unknown }).sequence), [1, 1]);
    this.webhookIds.push(...responses.map((item) => item.webhookId));
    return `the integrator verified and received POST /offer/response twice: ${bodies.map((b) => b.response).join(', ')}`;
  }

  private async complete(): Promise<void> {
    deepStrictEqual((await this.sender.complete(this.completedOfferId, [this.org.workers[0].id])).status, 204);
    const offer = (await this.sender.getOffer(this.completedOfferId)).json;
    deepStrictEqual(
      { complete: offer.complete, isHistoric: offer.isHistoric, confirmations: offer.recipients.map((r) => r.confirmation) },
      { complete: true, isHistoric: true, confirmations: ['successful', 'unsuccessful', 'unsuccessful'] },
    );
  }

  private async completionPushed(): Promise<string> {
    const told = await this.waitFor('a completion push to each phone', async () => {
      const found = (await this.pushes(this.completedOfferId)).filter((p) => p.kind !== 'offer.created');
      return found.length === WORKERS && found;
    });
    const kindByToken = Object.fromEntries(told.map((p) => [p.token, p.kind]));
    const [first, second, third] = this.deviceTokens;
    deepStrictEqual(kindByToken, { [first]: 'offer.successful', [second]: 'offer.unsuccessful', [third]: 'offer.unsuccessful' });
    return `1 × offer.successful, 2 × offer.unsuccessful`;
  }

  private async notifyMailed(): Promise<string> {
    const count = await this.waitFor(`an e-mail to ${NOTIFY_ADDRESS}`, async () => {
      const now = await this.env.mailCount(NOTIFY_ADDRESS);
      return now > this.notifyMailsBefore && now;
    });
    return `${count - this.notifyMailsBefore} e-mail(s) to ${NOTIFY_ADDRESS}`;
  }

  private async withdraw(): Promise<void> {
    const created = await this.sender.createOffer(offerBody(this.org.user.id, this.workerIds()));
    deepStrictEqual(created.status, 201);
    this.withdrawnOfferId = created.text;
    deepStrictEqual((await this.sender.withdraw(this.withdrawnOfferId)).status, 200);
    const offer = (await this.sender.getOffer(this.withdrawnOfferId)).json;
    deepStrictEqual(
      { widthdrawn: offer.widthdrawn, isHistoric: offer.isHistoric, confirmations: offer.recipients.map((r) => r.confirmation) },
      { widthdrawn: true, isHistoric: true, confirmations: ['withdrawn', 'withdrawn', 'withdrawn'] },
    );
  }

  private async withdrawalPushed(): Promise<string> {
    const withdrawn = await this.waitFor('a withdrawal push to each phone', async () => {
      const found = (await this.pushes(this.withdrawnOfferId)).filter((p) => p.kind === 'offer.withdrawn');
      return found.length === WORKERS && found;
    });
    deepStrictEqual(withdrawn.map((p) => p.token).sort(), [...this.deviceTokens].sort());
    return `offer ${this.withdrawnOfferId}: ${withdrawn.length} offer.withdrawn pushes`;
  }

  private async addContact(): Promise<void> {
    const worker = this.org.workers[2];
    ok(await new WorkerContactsClient(this.env.urls.contactDirectory, worker.token).addContact(this.org.organisation.id), 'the contact is new');
  }

  private async contactDelivered(): Promise<string> {
    const path = `/contact/new/${this.org.workers[2].id}`;
    const items = await this.waitFor(`GET ${path} at the integrator`, async () => {
      const found = (await this.received()).filter((item) => item.method === 'GET' && item.path === path);
      return found.length > 0 && found;
    });
    this.webhookIds.push(...items.map((item) => item.webhookId));
    return `the integrator verified and received GET ${path}`;
  }

  private async invite(): Promise<void> {
    await this.portal.setSuggestionsEnabled(true);
    this.inviteMailsBefore = await this.env.mailCount(SUGGESTED_CONTACT.emailAddress);
    await this.portal.chooseSuggestionProvider(this.org.organisation.id, true);
    const search = await this.portal.searchSuggestions({});
    ok(
      search.suggestions.some((s) => s.emailAddress === SUGGESTED_CONTACT.emailAddress),
      `the integrator suggests ${SUGGESTED_CONTACT.emailAddress}: ${JSON.stringify(search)}`,
    );
    const [invitation] = await this.portal.invite([{ ...SUGGESTED_CONTACT, suggestedByOrganisationId: this.org.organisation.id }]);
    ok(invitation.created, 'the invitation is new');
  }

  private async inviteMailed(): Promise<string> {
    await this.waitFor(`the invitation e-mail to ${SUGGESTED_CONTACT.emailAddress}`, async () =>
      (await this.env.mailCount(SUGGESTED_CONTACT.emailAddress)) === this.inviteMailsBefore + 1,
    );
    return `invited ${SUGGESTED_CONTACT.name} <${SUGGESTED_CONTACT.emailAddress}>; the invitation e-mail went out`;
  }

  private async noDuplicates(): Promise<string> {
    const ours = (await this.received()).filter((item) => this.webhookIds.includes(item.webhookId));
    deepStrictEqual(ours.length, this.webhookIds.length, 'each webhook is one distinct webhook-id');
    const repeated = ours.filter((item) => item.deliveries !== 1);
    deepStrictEqual(repeated, [], 'each webhook reached the integrator exactly once');
    const pushes = [...(await this.pushes(this.completedOfferId)), ...(await this.pushes(this.withdrawnOfferId))];
    const keys = pushes.map((p) => `${p.eventId}/${p.token}`);
    deepStrictEqual(new Set(keys).size, keys.length, 'never two pushes for one (event, device)');
    return `${ours.length} webhooks and ${pushes.length} pushes, each exactly once`;
  }

  private workerIds(): string[] {
    return this.org.workers.map((w) => w.id);
  }

  private worker(index: number): OffersClient {
    return new OffersClient(this.env.urls.offersApi, this.org.workers[index].token);
  }

  private bodyOf(item: ReceivedWebhook): Record<string, string> {
    return item.body ? (JSON.parse(item.body) as Record<string, string>) : {};
  }

  private async received(): Promise<ReceivedWebhook[]> {
    const result = await request<{ items: ReceivedWebhook[] }>(this.env.urls.exampleIntegrator, 'GET', '/received');
    return result.json.items;
  }

  private async pushes(offerId: string): Promise<RecordedPush[]> {
    const result = await request<{ pushes: RecordedPush[] }>(this.env.urls.notificationService, 'GET', `/dev/push-log?offerId=${offerId}`);
    return result.json.pushes;
  }

  /** Polls until `check` gives a value; a service being restarted may refuse connections meanwhile. */
  private async waitFor<T>(what: string, check: () => Promise<T | false | undefined>): Promise<T> {
    const waitMs = this.env.waitMs ?? 20_000;
    const deadline = Date.now() + waitMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      try {
        const value = await check();
        if (value !== false && value !== undefined) return value;
      } catch (error) {
        lastError = error;
      }
      await sleep(100);
    }
    throw new Error(`waited ${waitMs} ms for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
  }
}
