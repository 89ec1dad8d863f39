import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { EVENT_PARTIES, EVENT_SCHEMAS, eventProblem } from './event-schemas.js';
import { EventSubject } from './event-subjects.js';

const envelope = () => ({ eventId: randomUUID(), occurredAt: new Date().toISOString(), organisationId: randomUUID() });

/** One valid example of each event, as its producer writes it. */
const EXAMPLES: Record<EventSubject, Record<string, unknown>> = {
  [EventSubject.OfferCreated]: {
    ...envelope(),
    offerId: randomUUID(),
    title: 'Night pickers',
    createdByUserId: randomUUID(),
    notifyEmailAddress: null,
    events: [{ start: '2030-01-01T22:00:00Z', end: '2030-01-02T06:00:00Z' }],
    workerIds: [randomUUID()],
  },
  [EventSubject.OfferResponseRecorded]: {
    ...envelope(),
    offerId: randomUUID(),
    workerId: randomUUID(),
    response: 'applied',
    previousResponse: 'awaiting',
    respondedAt: new Date().toISOString(),
  },
  [EventSubject.OfferCompleted]: { ...envelope(), offerId: randomUUID(), title: 'Night pickers', successfulWorkerIds: [randomUUID()], unsuccessfulWorkerIds: [] },
  [EventSubject.OfferWithdrawn]: { ...envelope(), offerId: randomUUID(), title: 'Night pickers', workerIds: [randomUUID()] },
  [EventSubject.ContactAdded]: { ...envelope(), contactId: randomUUID(), workerId: randomUUID() },
  [EventSubject.InviteCreated]: {
    ...envelope(),
    inviteId: randomUUID(),
    invitedByUserId: randomUUID(),
    invitedByName: 'Ada',
    organisationName: 'Acme Staffing',
    name: 'Bo',
    emailAddress: 'bo@example.com',
    suggestedByOrganisationId: null,
  },
  [EventSubject.WebhookEndpointDisabled]: { ...envelope(), baseUrl: 'https://partner.example.com/hooks', reason: '410 Gone' },
  // No organisation owns a sign-in request.
  [EventSubject.SignInRequested]: { eventId: randomUUID(), occurredAt: new Date().toISOString(), audience: 'worker', emailAddress: 'ann@example.com' },
};

describe('event schemas', () => {
  it('define every subject, with its producer and consumers', () => {
    expect(Object.keys(EVENT_SCHEMAS).sort()).toEqual(Object.values(EventSubject).sort());
    expect(Object.keys(EVENT_PARTIES).sort()).toEqual(Object.values(EventSubject).sort());
  });

  it.each(Object.values(EventSubject))('accept %s as its producer writes it, with fields a consumer does not know yet', (subject) => {
    expect(eventProblem(subject, EXAMPLES[subject])).toBeUndefined();
    expect(eventProblem(subject, { ...EXAMPLES[subject], addedLater: 1 })).toBeUndefined();
  });

  it.each(Object.values(EventSubject))('refuse %s without any one of its fields, naming it', (subject) => {
    for (const field of Object.keys(EXAMPLES[subject])) {
      const { [field]: _dropped, ...rest } = EXAMPLES[subject];
      expect([field, eventProblem(subject, rest)]).toEqual([field, expect.stringContaining(`/${field}`)]);
    }
  });

  it('refuse a wrong type, a bad id or time, an unknown answer, and a subject that is not an event', () => {
    const answer = EXAMPLES[EventSubject.OfferResponseRecorded];
    expect(eventProblem(EventSubject.OfferResponseRecorded, { ...answer, response: 'maybe' })).toMatch(/^\/response: /);
    expect(eventProblem(EventSubject.OfferResponseRecorded, { ...answer, offerId: 'off_1' })).toMatch(/^\/offerId: /);
    expect(eventProblem(EventSubject.OfferResponseRecorded, { ...answer, respondedAt: '24/11/2026' })).toMatch(/^\/respondedAt: /);
    expect(eventProblem(EventSubject.OfferCreated, { ...EXAMPLES[EventSubject.OfferCreated], workerIds: 'w1' })).toMatch(/^\/workerIds: /);
    expect(eventProblem(EventSubject.OfferCreated, null)).toBeDefined();
    expect(eventProblem('offers.archived', {})).toBe('offers.archived is not an event of the platform');
  });

  it('refuse text no edge of the platform takes: NUL, or a surrogate without its pair, in any text field', () => {
    const offer = EXAMPLES[EventSubject.OfferCreated];
    for (const bad of ['a\u0000b', '\ud800', 'x\udfff', '\udfff\ud800']) {
      expect(eventProblem(EventSubject.OfferCreated, { ...offer, title: bad })).toMatch(/^\/title: /);
      expect(eventProblem(EventSubject.OfferCreated, { ...offer, workerIds: ['w1', bad] })).toMatch(/^\/workerIds\/1: /);
      expect(eventProblem(EventSubject.InviteCreated, { ...EXAMPLES[EventSubject.InviteCreated], name: bad })).toMatch(/^\/name: /);
    }
    // Pairs are text: emoji and other characters beyond the first plane.
    expect(eventProblem(EventSubject.OfferCreated, { ...offer, title: 'Night pickers 🌙 𝔸 👩‍👩‍👧', workerIds: ['😀'] })).toBeUndefined();
  });
});
