import { describe, expect, it } from '@jest/globals';
import { isEmail } from 'class-validator';
import { isEmailAddress, isHttpUrl, isLastWorked, parseSuggestionsReply, validateSuggestion } from './suggestion-validation.js';

const rating = { rating: 4, ratingProvider: 'Warehouse North', lastWorked: '2024-05-01' };
const good = { name: 'Jo Picker', emailAddress: 'jo@example.com', profileImageUrl: 'https://img.example/jo.png', ratings: [rating] };

describe('validateSuggestion (spec 2.7/2.8)', () => {
  it('accepts a valid suggestion and copies only the known fields', () => {
    expect(validateSuggestion({ ...good, extra: 'x' })).toEqual(good);
    expect(validateSuggestion({ name: 'A', emailAddress: 'a@example.com', ratings: [] })).toEqual({ name: 'A', emailAddress: 'a@example.com', ratings: [] });
  });

  it.each([
    ['missing name', { ...good, name: undefined }],
    ['blank name', { ...good, name: '  ' }],
    ['missing e-mail', { ...good, emailAddress: undefined }],
    ['invalid e-mail', { ...good, emailAddress: 'not-an-address' }],
    ['non-http image', { ...good, profileImageUrl: 'javascript:alert(1)' }],
    ['ratings missing', { ...good, ratings: undefined }],
    ['ratings not an array', { ...good, ratings: {} }],
    ['rating 0', { ...good, ratings: [{ ...rating, rating: 0 }] }],
    ['rating 6', { ...good, ratings: [{ ...rating, rating: 6 }] }],
    ['rating 4.5', { ...good, ratings: [{ ...rating, rating: 4.5 }] }],
    ['rating "5"', { ...good, ratings: [{ ...rating, rating: '5' }] }],
    ['no rating provider', { ...good, ratings: [{ ...rating, ratingProvider: '' }] }],
    ['bad lastWorked', { ...good, ratings: [{ ...rating, lastWorked: 'yesterday' }] }],
    ['impossible date', { ...good, ratings: [{ ...rating, lastWorked: '2024-02-30' }] }],
    ['not an object', 'Jo'],
    ['null', null],
    ['an array', [good]],
  ])('drops %s', (_what, raw) => {
    expect(validateSuggestion(raw)).toBeUndefined();
  });

  it('accepts dates and ISO date-times for lastWorked', () => {
    for (const value of ['2024-05-01', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00+02:00', '2024-05-01T10:00']) {
      expect(isLastWorked(value)).toBe(true);
    }
    for (const value of ['2024-5-1', '2024-05-01T25:00:00Z', '01/05/2024', '', 20240501]) expect(isLastWorked(value)).toBe(false);
  });
});

describe('the fast paths agree with the general checks', () => {
  it.each([
    'jo@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'neil@example.org",
    'x@y.xn--p1ai',
    'a..b@example.com',
    '.a@example.com',
    'a.@example.com',
    '"quoted local"@example.com',
    'jö@example.com',
    'a@-example.com',
    'a@example-.com',
    'a@exa_mple.com',
    'a@example.c',
    'a@example.123',
    'a@localhost',
    'a@@example.com',
    `${'a'.repeat(64)}@example.com`,
    `${'a'.repeat(65)}@example.com`,
    `a@${'b'.repeat(63)}.com`,
    `a@${'b'.repeat(64)}.com`,
    `a@${'b.'.repeat(130)}com`,
  ])('e-mail %s', (address) => {
    expect(isEmailAddress(address)).toBe(isEmail(address));
  });

  const byUrlParser = (value: string) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
    } catch {
      return false;
    }
  };
  it.each([
    'https://img.example/jo.png',
    'http://img.example:8080/a/b?size=64&x=%20',
    'HTTPS://IMG.EXAMPLE/',
    'http://xn--ls8h.la/',
    'http://xn--zz/',
    'http://a.xn--/',
    'http://999.1.1.1/',
    'http://1.2.3.4/x',
    'http://user:pw@example.com/',
    'http://example.com:99999/',
    'ftp://example.com/',
    'http:///x',
    'http://exa mple.com/',
  ])('URL %s', (value) => {
    expect(isHttpUrl(value)).toBe(byUrlParser(value));
  });
});

describe('parseSuggestionsReply', () => {
  it('keeps valid elements and counts invalid ones', () => {
    const body = JSON.stringify([good, { ...good, ratings: [{ ...rating, rating: 9 }] }, { name: 'x' }]);
    expect(parseSuggestionsReply(body, false, 500, 1000)).toEqual({ status: 'ok', suggestions: [good], dropped: 2 });
  });

  it('reads at most the per-provider limit and counts the rest as dropped', () => {
    const body = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ ...good, emailAddress: `p${i}@example.com` })));
    const verdict = parseSuggestionsReply(body, false, 3, 10_000);
    expect(verdict.suggestions).toHaveLength(3);
    expect(verdict.dropped).toBe(7);
  });

  it('calls malformed, non-array and oversized replies invalid', () => {
    expect(parseSuggestionsReply('{"name": ', false, 10, 100)).toMatchObject({ status: 'invalid', error: expect.stringMatching(/JSON/) });
    expect(parseSuggestionsReply('{"suggestions": []}', false, 10, 100)).toMatchObject({ status: 'invalid', error: expect.stringMatching(/array/) });
    expect(parseSuggestionsReply('[', true, 10, 100)).toMatchObject({ status: 'invalid', error: expect.stringMatching(/100 bytes/) });
  });
});
