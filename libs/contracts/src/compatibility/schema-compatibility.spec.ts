import { describe, expect, it } from '@jest/globals';
import { EVENT_SCHEMAS } from '../events/event-schemas.js';
import { EventSubject } from '../events/event-subjects.js';
import { breakingChangesForReaders } from './schema-compatibility.js';

/** A copy of an event's schema as plain JSON, for a test to change. */
const copyOf = (subject: EventSubject) => JSON.parse(JSON.stringify(EVENT_SCHEMAS[subject]));

describe('breakingChangesForReaders', () => {
  it('finds nothing when nothing changed, or only a field was added', () => {
    const released = copyOf(EventSubject.OfferResponseRecorded);
    expect(breakingChangesForReaders(released, copyOf(EventSubject.OfferResponseRecorded))).toEqual([]);
    const added = copyOf(EventSubject.OfferResponseRecorded);
    added.properties.channel = { type: 'string' };
    added.required.push('channel');
    expect(breakingChangesForReaders(released, added)).toEqual([]);
  });

  it('catches a removed field', () => {
    const current = copyOf(EventSubject.OfferResponseRecorded);
    delete current.properties.respondedAt;
    current.required = current.required.filter((name: string) => name !== 'respondedAt');
    expect(breakingChangesForReaders(copyOf(EventSubject.OfferResponseRecorded), current)).toEqual(['/respondedAt: removed']);
  });

  it('catches a changed type, also inside a list', () => {
    const current = copyOf(EventSubject.OfferCreated);
    current.properties.title = { type: 'number' };
    current.properties.workerIds.items = { type: 'integer' };
    expect(breakingChangesForReaders(copyOf(EventSubject.OfferCreated), current)).toEqual([
      '/title: type changed from string to number',
      '/workerIds[]: type changed from string to integer',
    ]);
  });

  it('catches a field no longer always present, a new value where readers know a fixed set, and a looser format', () => {
    const current = copyOf(EventSubject.OfferResponseRecorded);
    current.required = current.required.filter((name: string) => name !== 'workerId');
    current.properties.response.anyOf.push({ const: 'maybe', type: 'string' });
    delete current.properties.offerId.pattern;
    expect(breakingChangesForReaders(copyOf(EventSubject.OfferResponseRecorded), current)).toEqual([
      '/offerId: format changed from /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/ to any string',
      '/workerId: no longer always present',
      '/response: may now be "maybe"',
    ]);
  });

  it('lets a type widen only where readers accepted anything, and a nullable field become a plain one', () => {
    const released = copyOf(EventSubject.OfferCreated);
    const current = copyOf(EventSubject.OfferCreated);
    current.properties.notifyEmailAddress = { type: 'string' };
    expect(breakingChangesForReaders(released, current)).toEqual([]);
    current.properties.notifyEmailAddress = { anyOf: [{ type: 'string' }, { type: 'number' }] };
    expect(breakingChangesForReaders(released, current)).toEqual(['/notifyEmailAddress: type changed from null|string to number|string']);
  });
});
