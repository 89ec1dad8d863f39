import { isEmail } from 'class-validator';

/** Spec 2.8. */
export interface Rating {
  rating: number;
  ratingProvider: string;
  lastWorked: string;
}

/** Spec 2.7, as the platform passes it on (unknown properties are not copied). */
export interface ContactSuggestion {
  name: string;
  emailAddress: string;
  profileImageUrl?: string;
  ratings: Rating[];
}

export const MAX_NAME_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 320;
export const MAX_URL_LENGTH = 2000;
export const MAX_RATINGS_PER_SUGGESTION = 100;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** ISO 8601 date-time; a missing zone is read as UTC (the spec says UTC; some integrators leave the Z off). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;

function nonEmptyString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= max;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A calendar date from year 100 on (Date.UTC reads years 0–99 as 1900–1999, so they never matched). */
function realDate(year: string, month: string, day: string): boolean {
  return realDateOf(Number(year), Number(month), Number(day));
}

function realDateOf(y: number, m: number, d: number): boolean {
  if (y < 100 || m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= DAYS_IN_MONTH[m - 1] + (leap ? 1 : 0);
}

/** The number written with `count` ASCII digits from `start`, or -1. */
function digitsAt(value: string, start: number, count: number): number {
  let number = 0;
  for (let index = start; index < start + count; index += 1) {
    const digit = value.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/**
 * `YYYY-MM-DD` and `YYYY-MM-DDTHH:MM:SSZ`, the forms integrators send, read without regular
 * expressions or Date. True only for values the general check below accepts; anything else goes there.
 */
function isCommonLastWorked(value: string): boolean {
  if (value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return false; // '-'
  if (!realDateOf(digitsAt(value, 0, 4), digitsAt(value, 5, 2), digitsAt(value, 8, 2))) return false;
  if (value.length === 10) return true;
  if (value.length !== 20 || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':' || value[19] !== 'Z') return false;
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  return hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && second >= 0 && second < 60;
}

/** `YYYY-MM-DD` (as in the spec's sample) or an ISO 8601 date-time. */
export function isLastWorked(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 40) return false;
  if (isCommonLastWorked(value)) return true;
  const date = DATE.exec(value);
  if (date) return realDate(date[1], date[2], date[3]);
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime || !realDate(dateTime[1], dateTime[2], dateTime[3])) return false;
  return Number(dateTime[4]) < 24 && Number(dateTime[5]) < 60 && !Number.isNaN(Date.parse(dateTime[8] ? value : `${value}Z`));
}

/**
 * The common shape of an image URL, checked without building a URL object: http(s), a host name
 * (whose last label starts with a letter, so it is never read as an IPv4 number, and no punycode
 * label, which `new URL` would decode and may refuse), an optional port,
 * and a path and query of URL characters. Everything it accepts, `new URL` accepts too, with no
 * credentials; anything else goes to `new URL`.
 */
const PLAIN_HTTP_URL = /^https?:\/\/(?:(?!xn--)[a-z0-9-]+\.)*(?!xn--)[a-z][a-z0-9-]*(?::\d{1,4})?(?:[/?][A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/i;

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return false;
  if (PLAIN_HTTP_URL.test(value)) return true;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

// The usual e-mail address: dot-separated atoms of ASCII atext, '@', LDH labels and an alphabetic or
// punycode top-level domain. Every such address within the length limits below is one that
// class-validator's isEmail (validator.js, default options) accepts, so only the rest (quoted local
// parts, non-ASCII, unusual forms and invalid input) pays for the full check.
const ATEXT = "[a-z0-9!#$%&'*+\\-/=?^_`{|}~]+";
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PLAIN_EMAIL = new RegExp(`^${ATEXT}(?:\\.${ATEXT})*@(?:${LABEL}\\.)+(?:[a-z]{2,63}|xn[a-z0-9-]{1,60}[a-z0-9])$`, 'i');

/** class-validator's isEmail, with a fast path for the common form (see PLAIN_EMAIL). */
export function isEmailAddress(value: string): boolean {
  if (value.length <= 254 && PLAIN_EMAIL.test(value) && value.indexOf('@') <= 64) return true;
  return isEmail(value);
}

export function validateRating(raw: unknown): Rating | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { rating, ratingProvider, lastWorked } = raw as Record<string, unknown>;
  if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 5) return undefined;
  if (!nonEmptyString(ratingProvider, MAX_NAME_LENGTH)) return undefined;
  if (!isLastWorked(lastWorked)) return undefined;
  return { rating, ratingProvider, lastWorked };
}

/**
 * One element of an integrator's reply checked against spec 2.7/2.8, or undefined when it is not
 * valid. A suggestion with any invalid rating is dropped whole (DESIGN 4: "rating outside 1..5 →
 * dropped"): showing it without that rating would misrepresent the contact.
 */
export function validateSuggestion(raw: unknown): ContactSuggestion | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { name, emailAddress, profileImageUrl, ratings } = raw as Record<string, unknown>;
  if (!nonEmptyString(name, MAX_NAME_LENGTH)) return undefined;
  if (!nonEmptyString(emailAddress, MAX_EMAIL_LENGTH) || !isEmailAddress(emailAddress)) return undefined;
  if (profileImageUrl !== undefined && profileImageUrl !== null && !isHttpUrl(profileImageUrl)) return undefined;
  if (!Array.isArray(ratings) || ratings.length > MAX_RATINGS_PER_SUGGESTION) return undefined;
  const valid: Rating[] = [];
  for (const entry of ratings) {
    const rating = validateRating(entry);
    if (!rating) return undefined;
    valid.push(rating);
  }
  const suggestion: ContactSuggestion = { name, emailAddress, ratings: valid };
  if (typeof profileImageUrl === 'string') suggestion.profileImageUrl = profileImageUrl;
  return suggestion;
}

export type ReplyVerdict =
  | { status: 'ok'; suggestions: ContactSuggestion[]; dropped: number }
  | { status: 'invalid'; suggestions: []; dropped: number; error: string };

/**
 * An integrator's whole reply body: a JSON array of suggestions. Invalid elements are dropped and
 * counted; elements beyond `maxSuggestions` are not read and count as dropped too.
 */
export function parseSuggestionsReply(body: string, truncated: boolean, maxSuggestions: number, maxBytes: number): ReplyVerdict {
  if (truncated) return { status: 'invalid', suggestions: [], dropped: 0, error: `the reply is larger than ${maxBytes} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 'invalid', suggestions: [], dropped: 0, error: 'the reply is not valid JSON' };
  }
  if (!Array.isArray(parsed)) return { status: 'invalid', suggestions: [], dropped: 0, error: 'the reply is not a JSON array' };
  const suggestions: ContactSuggestion[] = [];
  let dropped = Math.max(0, parsed.length - maxSuggestions);
  const read = Math.min(parsed.length, maxSuggestions);
  for (let index = 0; index < read; index += 1) {
    const suggestion = validateSuggestion(parsed[index]);
    if (suggestion) suggestions.push(suggestion);
    else dropped += 1;
  }
  return { status: 'ok', suggestions, dropped };
}
