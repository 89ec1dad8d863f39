import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { EventSubject } from '@availability/contracts';
import { InvalidEventError, newEvent, outboxMessage } from './outbox.js';

describe('outboxMessage', () => {
  const withdrawn = () => newEvent(randomUUID(), { offerId: randomUUID(), title: 'Night pickers', workerIds: [randomUUID()] });

  it('writes an event that matches its schema', () => {
    const event = withdrawn();
    expect(JSON.parse(outboxMessage(EventSubject.OfferWithdrawn, event).payload)).toEqual(event);
  });

  it('refuses, at the producer, an event that breaks its schema, naming the field', () => {
    const broken = { ...withdrawn(), workerIds: 'w1' };
    expect(() => outboxMessage(EventSubject.OfferWithdrawn, broken as never)).toThrow(InvalidEventError);
    expect(() => outboxMessage(EventSubject.OfferWithdrawn, broken as never)).toThrow(/offers\.withdrawn event does not match its schema: \/workerIds/);
    expect(() => outboxMessage('offers.archived', withdrawn())).toThrow(/not an event of the platform/);
  });
});
