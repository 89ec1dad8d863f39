import { describe, expect, it } from '@jest/globals';
import { isEmail } from 'class-validator';
import {
  isEmailAddress,
  isHttpUrl,
  isLastWorked,
  MAX_NAME_LENGTH,
  MAX_RATINGS_PER_SUGGESTION,
  MAX_URL_LENGTH,
  parseSuggestionsReply,
  validateRating,
  validateSuggestion,
} from './suggestion-validation.js';

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

describe('the boundaries of a valid suggestion', () => {
  it.each([1, 2, 3, 4, 5])('keeps rating %p', (value) => {
    expect(validateRating({ ...rating, rating: value })).toEqual({ ...rating, rating: value });
    expect(validateSuggestion({ ...good, ratings: [{ ...rating, rating: value }] })?.ratings[0].rating).toBe(value);
  });

  it.each([0, -1, 6, 1.5, 4.999, 0.5, 5.0001, Number.NaN, Infinity, -Infinity, '5', '1', null, undefined, true, [5], { value: 5 }])('drops rating %p', (value) => {
    expect(validateRating({ ...rating, rating: value })).toBeUndefined();
    expect(validateSuggestion({ ...good, ratings: [rating, { ...rating, rating: value }] })).toBeUndefined();
  });

  it('drops ratings that are not objects', () => {
    for (const entry of [null, 4, 'good', [rating], undefined]) {
      expect(validateRating(entry)).toBeUndefined();
      expect(validateSuggestion({ ...good, ratings: [entry] })).toBeUndefined();
    }
  });

  it(`keeps names and rating providers of up to ${MAX_NAME_LENGTH} characters`, () => {
    const longest = 'n'.repeat(MAX_NAME_LENGTH);
    expect(validateSuggestion({ ...good, name: longest })?.name).toBe(longest);
    expect(validateSuggestion({ ...good, name: `${longest}n` })).toBeUndefined();
    expect(validateSuggestion({ ...good, ratings: [{ ...rating, ratingProvider: longest }] })?.ratings[0].ratingProvider).toBe(longest);
    expect(validateSuggestion({ ...good, ratings: [{ ...rating, ratingProvider: `${longest}n` }] })).toBeUndefined();
    for (const bad of ['', ' \t ', 42, null]) {
      expect(validateSuggestion({ ...good, name: bad })).toBeUndefined();
      expect(validateSuggestion({ ...good, ratings: [{ ...rating, ratingProvider: bad }] })).toBeUndefined();
    }
  });

  it(`keeps up to ${MAX_RATINGS_PER_SUGGESTION} ratings`, () => {
    const ratings = Array.from({ length: MAX_RATINGS_PER_SUGGESTION }, () => rating);
    expect(validateSuggestion({ ...good, ratings })?.ratings).toHaveLength(MAX_RATINGS_PER_SUGGESTION);
    expect(validateSuggestion({ ...good, ratings: [...ratings, rating] })).toBeUndefined();
  });

  it('treats a null or absent image as none, and leaves it out', () => {
    for (const profileImageUrl of [null, undefined]) {
      const kept = validateSuggestion({ ...good, profileImageUrl });
      expect(kept).toBeDefined();
      expect(kept).not.toHaveProperty('profileImageUrl');
    }
    for (const bad of ['', 42, 'img.example/jo.png', 'https://user:pw@img.example/jo.png']) expect(validateSuggestion({ ...good, profileImageUrl: bad })).toBeUndefined();
  });

  it(`takes image URLs of up to ${MAX_URL_LENGTH} characters`, () => {
    const prefix = 'https://img.example/';
    const longest = prefix + 'a'.repeat(MAX_URL_LENGTH - prefix.length);
    expect(isHttpUrl(longest)).toBe(true);
    expect(isHttpUrl(`${longest}a`)).toBe(false);
    const unusual = 'https://[2001:db8::1]/' + 'a'.repeat(MAX_URL_LENGTH - 22);
    expect(isHttpUrl(unusual)).toBe(true);
    expect(isHttpUrl(`${unusual}a`)).toBe(false);
    expect(isHttpUrl(42)).toBe(false);
    expect(isHttpUrl(undefined)).toBe(false);
  });

  it.each([
    ['2024-02-29', true], // leap year
    ['2023-02-29', false],
    ['1900-02-29', false], // divisible by 100
    ['2000-02-29', true], // divisible by 400
    ['2023-02-28', true],
    ['2024-01-31', true],
    ['2024-04-31', false],
    ['2024-04-30', true],
    ['2024-12-31', true],
    ['2024-13-01', false],
    ['2024-00-10', false],
    ['2024-01-00', false],
    ['0100-01-01', true],
    ['0099-12-31', false],
    ['2024/05/01', false],
    ['2024-05/01', false],
    ['2024/05-01', false],
    ['2024-0:-01', false], // ':' and '/' are the characters either side of the digits
    ['2024-1/-01', false],
    ['2024-05-0:', false],
    ['20:4-05-01', false],
    ['2024-05-01T23:59:59Z', true],
    ['2024-05-01T00:00:00Z', true],
    ['2024-05-01T24:00:00Z', false],
    ['2024-05-01T10:60:00Z', false],
    ['2024-05-01T10:00:60Z', false],
    ['2024-05-01T1/:00:00Z', false],
    ['2024-05-01T10:0/:00Z', false],
    ['2024-05-01T10:00:0/Z', false],
    ['2024-05-01T1::00:00Z', false],
    ['2024-05-01 10:00:00Z', false],
    ['2024-05-01T10-00:00Z', false],
    ['2024-05-01T10:00-00Z', false],
    ['2024-05-01T10:00:00X', false],
    ['2024-05-01T10:00:00ZZ', false],
    ['2024-02-30T10:00:00Z', false],
    ['2024-05-01t10:00:00z', true],
    ['2024-05-01T23:59', true],
    ['2024-05-01T24:00', false],
    ['2024-05-01T10:60', false],
    ['2024-05-01T10:00:00.123456789+14:00', true],
    [`2024-05-01T10:00:00.${'1'.repeat(30)}Z`, false],
    [null, false],
  ])('lastWorked %p is %p', (value, valid) => {
    expect(isLastWorked(value)).toBe(valid);
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
    '@.com',
    '@example.com',
    'a@.com',
    'A.B@EXAMPLE.COM',
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
    'https://xn--ls8h.la/',
    'https://[2001:db8::1]/jo.png',
    'http://xn--zz/',
    'http://a.xn--/',
    'http://999.1.1.1/',
    'http://1.2.3.4/x',
    'http://user:pw@example.com/',
    'http://example.com:99999/',
    'ftp://example.com/',
    'http:///x',
    'http://exa mple.com/',
    'http:// .example.com/',
    'http:// .com/',
    'xhttp://example.com/',
    'javascript:http://example.com/',
    'http://xn--zz.example/',
    'http://example.c^/',
    'http://example.com:ab/',
    'http://example.com:8080',
    'http://a.b.example.com/x',
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
    expect(parseSuggestionsReply(body, false, 10, 10_000)).toMatchObject({ status: 'ok', dropped: 0 });
    expect(parseSuggestionsReply(body, false, 11, 10_000).suggestions).toHaveLength(10);
    expect(parseSuggestionsReply(body, false, 9, 10_000)).toMatchObject({ dropped: 1 });
    expect(parseSuggestionsReply('[]', false, 0, 10_000)).toEqual({ status: 'ok', suggestions: [], dropped: 0 });
  });

  it('calls malformed, non-array and oversized replies invalid', () => {
    expect(parseSuggestionsReply('{"name": ', false, 10, 100)).toEqual({ status: 'invalid', suggestions: [], dropped: 0, error: 'the reply is not valid JSON' });
    expect(parseSuggestionsReply('{"suggestions": []}', false, 10, 100)).toEqual({ status: 'invalid', suggestions: [], dropped: 0, error: 'the reply is not a JSON array' });
    expect(parseSuggestionsReply('[]', true, 10, 100)).toEqual({ status: 'invalid', suggestions: [], dropped: 0, error: 'the reply is larger than 100 bytes' });
  });
});
