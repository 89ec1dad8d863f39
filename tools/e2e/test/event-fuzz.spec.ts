import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, type JetStreamClient, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { EVENT_PARTIES, EventSubject } from '@availability/contracts';
import { DirectoryAdminClient, issuePortalUserToken, offerBody, OffersClient, PortalClient, request, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, TEST_ADMIN_TOKEN } from '@availability/testing';
import { type HostileMessage, hostileMessages } from '../src/fuzz/messages.js';
import { type JourneyPlatform, startJourneyPlatform } from '../src/test-journey.js';

/**
 * The stream as a broken or compromised producer could fill it: events of every subject a service
 * consumes, each with one hostile thing in it (text with NUL or lone surrogates, a field of the wrong
 * type, bytes that are not JSON), published with full rights on the bus. Each must be handled or parked
 * at its first delivery: an event that fails the same way every time must not be retried for hours
 * while it holds a place in its consumer's window, and the platform must carry on.
 *
 * EVENT_FUZZ_SEED replays a run (it is printed on failure); EVENT_FUZZ_COUNT sets how many events of
 * each subject (60).
 */
const SEED = Number(process.env.EVENT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const COUNT = Number(process.env.EVENT_FUZZ_COUNT ?? 60);

let journey: JourneyPlatform;
let organisation: SeededOrganisation;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
const knownOfferId = randomUUID();

function envelope(eventId: string) {
  return { eventId, occurredAt: new Date().toISOString(), organisationId: organisation.organisation.id };
}

/** A valid event of each consumed subject, about the seeded organisation, its worker and a known offer. */
function validEvent(subject: string, eventId: string): Record<string, unknown> {
  const workerId = organisation.workers[0].id;
  const title = 'Night pickers';
  switch (subject) {
    case EventSubject.OfferCreated:
      return { ...envelope(eventId), offerId: knownOfferId, title, createdByUserId: organisation.user.id, notifyEmailAddress: null, events: [{ start: '2030-01-01T22:00:00.000Z', end: '2030-01-02T06:00:00.000Z' }], workerIds: [workerId] };
    case EventSubject.OfferResponseRecorded:
      return { ...envelope(eventId), offerId: knownOfferId, workerId, response: 'applied', previousResponse: 'awaiting', respondedAt: new Date().toISOString() };
    case EventSubject.OfferCompleted:
      return { ...envelope(eventId), offerId: knownOfferId, title, successfulWorkerIds: [workerId], unsuccessfulWorkerIds: [] };
    case EventSubject.OfferWithdrawn:
      return { ...envelope(eventId), offerId: knownOfferId, title, workerIds: [workerId] };
    case EventSubject.ContactAdded:
      return { ...envelope(eventId), contactId: randomUUID(), workerId };
    case EventSubject.InviteCreated:
      return { ...envelope(eventId), inviteId: randomUUID(), invitedByUserId: organisation.user.id, invitedByName: 'Ada', organisationName: 'Fuzz Ltd', name: 'Grace', emailAddress: 'grace@example.com', suggestedByOrganisationId: null };
    case EventSubject.WebhookEndpointDisabled:
      return { ...envelope(eventId), baseUrl: 'https://integrator.example', reason: 'answered 410 Gone' };
    case EventSubject.SignInRequested:
      // No organisation owns a sign-in request; the seeded user's address, so valid ones are e-mailed (and paced).
      return { eventId, occurredAt: new Date().toISOString(), audience: 'portal', emailAddress: organisation.user.email };
    default:
      throw new Error(`no valid event for ${subject}`);
  }
}

async function publish(subject: string, bytes: Uint8Array): Promise<number> {
  const ack = await js.publish(`${journey.platform.events.prefix}${subject}`, bytes, { msgID: randomUUID() });
  return ack.seq;
}

/** True when every consumer of the stream has had every event and holds none unanswered. */
async function consumersSettled(): Promise<boolean> {
  for await (const consumer of jsm.consumers.list(journey.platform.events.stream)) {
    if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
  }
  return true;
}

/** The services' log lines about the events published, by stream sequence: why each was retried. */
function retried(published: Map<number, HostileMessage>): string[] {
  const lines = ['contact-directory', 'notification-service', 'webhook-dispatcher'].flatMap((app) => journey.platform.services[app].logs().split('\n').map((line) => ({ app, line })));
  return lines.flatMap(({ app, line }) => {
    const match = /event (\d+) on \S+ (failed: .*?|could not be parked.*?) \(attempt/.exec(line);
    const event = match && published.get(Number(match[1]));
    return event ? [`${app}: ${event.subject} with ${event.description}: ${match[2]}`] : [];
  });
}

beforeAll(async () => {
  journey = await startJourneyPlatform();
  const urls = journey.environment(TEST_ADMIN_TOKEN).urls;
  const admin = new DirectoryAdminClient(urls.contactDirectory, TEST_ADMIN_TOKEN);
  organisation = await seedOrganisation(admin, { name: 'Hostile events', workers: 1 });
  const portalToken = await issuePortalUserToken(urls.contactDirectory, TEST_ADMIN_TOKEN, organisation.user.id);
  const environment = journey.environment(TEST_ADMIN_TOKEN);
  await new PortalClient(urls.contactDirectory, portalToken.token).saveWebhook(environment.integratorBaseUrl, environment.integratorSecret);
  nc = await journey.platform.events.connect();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  // The known offer, so that events about it are not held back waiting for it.
  await publish(EventSubject.OfferCreated, new TextEncoder().encode(JSON.stringify(validEvent(EventSubject.OfferCreated, randomUUID()))));
  await eventually(consumersSettled, 20_000, 'the consumers to take the known offer');
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await journey?.stop();
});

describe(`hostile events on the stream (EVENT_FUZZ_SEED=${SEED})`, () => {
  it(`handles or parks each of ${COUNT} of each subject at its first delivery, retrying none`, async () => {
    const consumed = Object.values(EventSubject).filter((subject) => EVENT_PARTIES[subject].consumers.length > 0);
    // Every subject gets its share, however the draws fall.
    const events = consumed.flatMap((subject, index) => fc.sample(hostileMessages([subject], validEvent), { numRuns: COUNT, seed: SEED + index }));
    const published = new Map<number, HostileMessage>();
    for (const event of events) published.set(await publish(event.subject, event.bytes), event);
    try {
      await eventually(consumersSettled, 30_000, 'every consumer to have handled or parked every event');
    } catch (error) {
      throw new Error(`${(error as Error).message}\nreplay with EVENT_FUZZ_SEED=${SEED}\n${[...new Set(retried(published))].join('\n')}`);
    }
    expect(retried(published)).toEqual([]);
  }, 180_000);

  it('carries on: an offer answered afterwards reaches the integrator, signed', async () => {
    const urls = journey.environment(TEST_ADMIN_TOKEN).urls;
    const sender = new OffersClient(urls.offersApi, organisation.apiKey);
    const created = await sender.createOffer(offerBody(organisation.user.id, [organisation.workers[0].id]));
    expect(created.status).toBe(201);
    expect((await sender.as(organisation.workers[0].token).answer(created.text, 'applied')).status).toBe(200);
    await eventually(async () => {
      const received = await request<{ items: Array<{ body: string }> }>(urls.exampleIntegrator, 'GET', '/received');
      return received.json.items.some((item) => item.body.includes(created.text));
    }, 20_000, 'the integrator to receive the answer');
  });
});
