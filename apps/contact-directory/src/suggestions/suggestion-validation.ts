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

function realDate(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/** `YYYY-MM-DD` (as in the spec's sample) or an ISO 8601 date-time. */
export function isLastWorked(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 40) return false;
  const date = DATE.exec(value);
  if (date) return realDate(date[1], date[2], date[3]);
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime || !realDate(dateTime[1], dateTime[2], dateTime[3])) return false;
  return Number(dateTime[4]) < 24 && Number(dateTime[5]) < 60 && !Number.isNaN(Date.parse(dateTime[8] ? value : `${value}Z`));
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
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
  if (!nonEmptyString(emailAddress, MAX_EMAIL_LENGTH) || !isEmail(emailAddress)) return undefined;
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
  for (const element of parsed.slice(0, maxSuggestions)) {
    const suggestion = validateSuggestion(element);
    if (suggestion) suggestions.push(suggestion);
    else dropped += 1;
  }
  return { status: 'ok', suggestions, dropped };
}
