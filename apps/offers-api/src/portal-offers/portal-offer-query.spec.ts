import { describe, expect, it } from '@jest/globals';
import { ProblemException } from '@availability/service-core';
import { cursorTimestamp, decodeOfferCursor, encodeOfferCursor, type OfferCursor, portalOfferListQuery } from './portal-offer-query.js';

const ID = '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b';
const CURSOR: OfferCursor = { createdAtMicros: 1_764_079_302_123_456, id: ID };

function fieldErrors(query: Record<string, unknown>): Record<string, string[]> {
  try {
    portalOfferListQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    const problem = error as ProblemException;
    expect(problem.getStatus()).toBe(400);
    return (problem.getResponse() as { errors: Record<string, string[]> }).errors;
  }
  throw new Error('accepted');
}

describe('offer cursors', () => {
  it('round-trip, opaque (base64url) and without padding', () => {
    const encoded = encodeOfferCursor(CURSOR);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encoded).not.toContain(ID);
    expect(decodeOfferCursor(encoded)).toEqual(CURSOR);
    expect(decodeOfferCursor(encodeOfferCursor({ createdAtMicros: 0, id: ID }))).toEqual({ createdAtMicros: 0, id: ID });
  });

  it('write the id in lower case, so one position has one cursor', () => {
    expect(encodeOfferCursor({ ...CURSOR, id: ID.toUpperCase() })).toBe(encodeOfferCursor(CURSOR));
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['padded', `${encodeOfferCursor(CURSOR)}=`],
    ['a bare number', '1000000'],
    ['no id', Buffer.from('1764079302123456').toString('base64url')],
    ['an id that is not a uuid', Buffer.from('1764079302123456:abc').toString('base64url')],
    ['an upper-case id', Buffer.from(`1764079302123456:${ID.toUpperCase()}`).toString('base64url')],
    ['a negative time', Buffer.from(`-1:${ID}`).toString('base64url')],
    ['a leading zero', Buffer.from(`01:${ID}`).toString('base64url')],
    ['a fraction', Buffer.from(`1.5:${ID}`).toString('base64url')],
    ['a time past the safe integers', Buffer.from(`9007199254740993:${ID}`).toString('base64url')],
    ['17 digits', Buffer.from(`12345678901234567:${ID}`).toString('base64url')],
    ['trailing text', Buffer.from(`1:${ID}x`).toString('base64url')],
    ['very long', 'A'.repeat(129)],
  ])('refuse %s', (_, raw) => {
    expect(decodeOfferCursor(raw)).toBeUndefined();
  });

  it('refuse a second spelling of a valid cursor (non-canonical base64url bits)', () => {
    const encoded = encodeOfferCursor(CURSOR);
    const last = encoded.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const variants = [...alphabet].filter((c) => c !== last).map((c) => encoded.slice(0, -1) + c);
    // Some of these decode to the same bytes when the last character carries unused bits.
    for (const variant of variants) {
      const decoded = decodeOfferCursor(variant);
      if (decoded) expect(encodeOfferCursor(decoded)).toBe(variant);
    }
  });

  it('give PostgreSQL the exact microsecond', () => {
    expect(cursorTimestamp(CURSOR)).toBe('2025-11-25T14:01:42.123456Z');
    expect(cursorTimestamp({ createdAtMicros: 1_000_007, id: ID })).toBe('1970-01-01T00:00:01.000007Z');
    expect(cursorTimestamp({ createdAtMicros: 0, id: ID })).toBe('1970-01-01T00:00:00.000000Z');
  });
});

describe('portalOfferListQuery', () => {
  it('defaults to 20 of every status from the newest', () => {
    expect(portalOfferListQuery({})).toEqual({ limit: 20 });
  });

  it('takes a status, a limit of 1 to 100 and a cursor', () => {
    const before = encodeOfferCursor(CURSOR);
    expect(portalOfferListQuery({ status: 'open', limit: '1', before })).toEqual({ status: 'open', limit: 1, before: CURSOR });
    for (const status of ['open', 'ended', 'complete', 'withdrawn']) expect(portalOfferListQuery({ status }).status).toBe(status);
    expect(portalOfferListQuery({ limit: '100' }).limit).toBe(100);
  });

  it.each([
    [{ status: 'Open' }, ['status']],
    [{ status: '' }, ['status']],
    [{ status: 'historic' }, ['status']],
    [{ status: ['open', 'complete'] }, ['status']],
    [{ limit: '0' }, ['limit']],
    [{ limit: '101' }, ['limit']],
    [{ limit: '1e2' }, ['limit']],
    [{ limit: '-1' }, ['limit']],
    [{ limit: '20.0' }, ['limit']],
    [{ limit: '' }, ['limit']],
    [{ limit: ['5'] }, ['limit']],
    [{ before: '1000000' }, ['before']],
    [{ before: '' }, ['before']],
    [{ status: 'nope', limit: 'x', before: 'y' }, ['before', 'limit', 'status']],
  ])('%j is a 400 naming %j', (query, fields) => {
    expect(Object.keys(fieldErrors(query)).sort()).toEqual(fields);
  });

  it('ignores parameters it does not know', () => {
    expect(portalOfferListQuery({ sort: 'oldest', limit: '5' })).toEqual({ limit: 5 });
  });
});
