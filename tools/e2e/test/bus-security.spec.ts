import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import { type NatsConnection, PermissionViolationError } from '@nats-io/transport-node';
import { DirectoryPattern, EventSubject, type RequestReplyAnswer, type ResolveWebhookTargetReply } from '@availability/contracts';
import { busInboxPrefix, openWebhookTarget, SealedBox } from '@availability/messaging';
import {
  DirectoryAdminClient,
  issuePortalUserToken,
  type JourneyEnvironment,
  offerBody,
  OffersClient,
  PortalClient,
  request,
  seedOrganisation,
} from '@availability/platform-client';
import { eventually, TEST_ADMIN_TOKEN } from '@availability/testing';
import { type JourneyPlatform, startJourneyPlatform } from '../src/test-journey.js';

/**
 * The bus as an attacker on the platform's network sees it: a client with no credentials, and one
 * with another service's credentials (notification-service's), try to read a webhook secret, to
 * answer credential checks, and to forge an event. The NATS server refuses each, and the platform
 * carries on. The services themselves are never refused anything.
 */
let platform: JourneyPlatform;
let env: JourneyEnvironment;
const attackers: NatsConnection[] = [];

/** An organisation whose webhooks go to the example integrator, seeded through the real services. */
async function integratingOrganisation(name: string) {
  const admin = new DirectoryAdminClient(env.urls.contactDirectory, TEST_ADMIN_TOKEN);
  const seeded = await seedOrganisation(admin, { name, workers: 1 });
  const portalToken = await issuePortalUserToken(env.urls.contactDirectory, TEST_ADMIN_TOKEN, seeded.user.id);
  await new PortalClient(env.urls.contactDirectory, portalToken.token).saveWebhook(env.integratorBaseUrl, env.integratorSecret);
  return seeded;
}

/** Sends an offer and has its worker apply; resolves when the integrator has received the signed webhook. */
async function offerAnsweredAndDelivered(name: string): Promise<void> {
  const org = await integratingOrganisation(name);
  const sender = new OffersClient(env.urls.offersApi, org.apiKey);
  const created = await sender.createOffer(offerBody(org.user.id, [org.workers[0].id]));
  expect(created.status).toBe(201);
  const offerId = created.text;
  expect((await sender.as(org.workers[0].token).answer(offerId, 'applied')).status).toBe(200);
  await eventually(async () => {
    const received = await request<{ items: Array<{ body: string }> }>(env.urls.exampleIntegrator, 'GET', '/received');
    return received.json.items.some((item) => item.body.includes(offerId));
  }, 20_000, `the integrator to receive the webhook for offer ${offerId}`);
}

beforeAll(async () => {
  platform = await startJourneyPlatform();
  env = platform.environment(TEST_ADMIN_TOKEN);
}, 120_000);

afterAll(async () => {
  await Promise.all(attackers.map((nc) => nc.close().catch(() => undefined)));
  await platform?.stop();
});

const events = () => platform.platform.events;
const subject = (name: string) => `${events().prefix}${name}`;

async function attacker(as: 'notification-service'): Promise<NatsConnection> {
  const nc = await events().connect(as);
  attackers.push(nc);
  return nc;
}

/** The server's refusal behind a failed request or publish (nats.js wraps it in a RequestError). */
async function refusal(attempt: Promise<unknown>): Promise<PermissionViolationError> {
  const error = await attempt.then(
    () => undefined,
    (failure: Error) => failure,
  );
  const violation = error instanceof PermissionViolationError ? error : error?.cause;
  if (!(violation instanceof PermissionViolationError)) throw new Error(`expected a permissions violation, got ${error ? error.message : 'success'}`);
  return violation;
}

/** Subscribes, then waits for the server's verdict on the subscription: the error it was closed with, if any. */
async function trySubscribe(nc: NatsConnection, name: string, queue?: string): Promise<Error | void> {
  const subscription = nc.subscribe(name, queue ? { queue } : {});
  await nc.flush();
  return Promise.race([subscription.closed, new Promise<void>((resolve) => setTimeout(resolve, 1_000))]);
}

describe('the bus refuses what a client is not allowed', () => {
  it('the services themselves are never refused: an offer is answered and the signed webhook delivered', async () => {
    await offerAnsweredAndDelivered('Bus Security Before');
    expect(events().busViolations()).toEqual([]);
  });

  it('a client with no credentials is refused at connect, so it can neither ask, answer nor publish anything', async () => {
    await expect(events().connect('anonymous')).rejects.toThrow(/Authorization Violation/i);
    await eventually(() => events().busViolations().some((line) => line.includes('test-anonymous') && /authentication error/.test(line)), 5_000, 'the refusal in the log');
  });

  describe("with another service's credentials (notification-service)", () => {
    it('(a) cannot ask for a webhook secret', async () => {
      const nc = await attacker('notification-service');
      const asked = nc.request(subject(DirectoryPattern.ResolveWebhookTarget), JSON.stringify({ organisationId: '00000000-0000-4000-8000-000000000000' }), { timeout: 5_000 });
      expect(await refusal(asked)).toMatchObject({ operation: 'publish', subject: subject(DirectoryPattern.ResolveWebhookTarget) });
    });

    it('(b) cannot answer credential checks, nor read the dispatcher’s replies', async () => {
      const nc = await attacker('notification-service');
      const answering = await trySubscribe(nc, subject(DirectoryPattern.VerifyCredential), 'contact-directory');
      expect(answering).toBeInstanceOf(PermissionViolationError);
      expect((answering as PermissionViolationError).operation).toBe('subscription');
      const eavesdropping = await trySubscribe(nc, `${busInboxPrefix('webhook-dispatcher', events().prefix)}.>`);
      expect(eavesdropping).toBeInstanceOf(PermissionViolationError);
    });

    it('(c) cannot publish a forged event onto the stream', async () => {
      const nc = await attacker('notification-service');
      const forged = { eventId: '00000000-0000-4000-8000-0000000000f0', occurredAt: new Date().toISOString(), organisationId: '00000000-0000-4000-8000-000000000001' };
      const published = jetstream(nc).publish(subject(EventSubject.OfferResponseRecorded), JSON.stringify(forged), { timeout: 5_000 });
      expect(await refusal(published)).toMatchObject({ operation: 'publish', subject: subject(EventSubject.OfferResponseRecorded) });
      const stored = await events().messages(EventSubject.OfferResponseRecorded);
      expect(stored.some((event) => event.data.eventId === forged.eventId)).toBe(false);
    });

    it('the server logged each refusal', () => {
      const refused = events().busViolations().join('\n');
      expect(refused).toContain(subject(DirectoryPattern.ResolveWebhookTarget));
      expect(refused).toContain(subject(DirectoryPattern.VerifyCredential));
      expect(refused).toContain(subject(EventSubject.OfferResponseRecorded));
    });
  });

  it("the dispatcher's own reply carries the secret sealed: not in the bytes, opened only with the dispatcher's key", async () => {
    const org = await integratingOrganisation('Bus Security Sealed');
    const nc = await events().connect('webhook-dispatcher');
    attackers.push(nc);
    const message = await nc.request(subject(DirectoryPattern.ResolveWebhookTarget), JSON.stringify({ organisationId: org.organisation.id }), { timeout: 5_000 });
    const bytes = Buffer.from(message.data);
    expect(bytes.includes(env.integratorSecret)).toBe(false);
    expect(bytes.includes(Buffer.from(env.integratorSecret).toString('base64'))).toBe(false);

    const answer = message.json<RequestReplyAnswer<ResolveWebhookTargetReply>>();
    if (!answer.ok) throw new Error(answer.error);
    const { directory, dispatcher } = events().credentials.sealing;
    const opened = openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, org.organisation.id, answer.result);
    expect(opened).toEqual({ baseUrl: env.integratorBaseUrl, secrets: [env.integratorSecret], signatureSchemes: ['hmac', 'v1'] });
    // Any other key (here the directory's own) opens nothing.
    expect(() => openWebhookTarget(new SealedBox(directory.seed), directory.publicKey, org.organisation.id, answer.result)).toThrow(/does not open/);
  });

  it('the platform keeps working afterwards: a new organisation is verified, its offer answered and its webhook delivered', async () => {
    const before = events().busViolations().length;
    await offerAnsweredAndDelivered('Bus Security After');
    expect(events().busViolations().slice(before)).toEqual([]);
  });
});
