import { type FieldErrors, ProblemException } from '@availability/service-core';

/**
 * Where an offer stands, as the portal shows and filters it. Derived from the spec's flags: withdrawn
 * and complete are final; otherwise an offer whose last slot has ended is `ended`, else `open`.
 */
export const PORTAL_OFFER_STATUSES = ['open', 'ended', 'complete', 'withdrawn'] as const;
export type PortalOfferStatus = (typeof PORTAL_OFFER_STATUSES)[number];

export const PORTAL_OFFERS_DEFAULT_PAGE = 20;
export const PORTAL_OFFERS_MAX_PAGE = 100;

/** The last offer of a page: the next page starts after it in (created_at, id) order, newest first. */
export interface OfferCursor {
  /** created_at in microseconds since the epoch: PostgreSQL's own precision, so the order is exact. */
  createdAtMicros: number;
  id: string;
}

export interface PortalOfferListQuery {
  status?: PortalOfferStatus;
  limit: number;
  before?: OfferCursor;
}

const CURSOR_TEXT = /^(0|[1-9]\d{0,15}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,128}$/;

/** Opaque to clients (base64url), so the order it encodes can change without breaking them. */
export function encodeOfferCursor(cursor: OfferCursor): string {
  return Buffer.from(`${cursor.createdAtMicros}:${cursor.id.toLowerCase()}`, 'latin1').toString('base64url');
}

/**
 * A cursor this service made, or undefined. Only the exact text `encodeOfferCursor` writes is taken
 * (re-encoding must give it back), so no two spellings of one cursor exist and nothing unchecked
 * reaches SQL.
 */
export function decodeOfferCursor(raw: string): OfferCursor | undefined {
  if (!BASE64URL.test(raw)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(raw, 'base64url').toString('latin1'));
  if (!match) return undefined;
  const cursor = { createdAtMicros: Number(match[1]), id: match[2] };
  if (!Number.isSafeInteger(cursor.createdAtMicros) || encodeOfferCursor(cursor) !== raw) return undefined;
  return cursor;
}

/** The cursor's time as a timestamp PostgreSQL reads exactly (JavaScript's Date stops at milliseconds). */
export function cursorTimestamp(cursor: OfferCursor): string {
  const millis = Math.floor(cursor.createdAtMicros / 1000);
  const micros = String(cursor.createdAtMicros % 1000).padStart(3, '0');
  return `${new Date(millis).toISOString().slice(0, -1)}${micros}Z`;
}

/**
 * `?status=&limit=&before=` of `GET /portal/offers`: every malformed parameter is named in one 400.
 * A parameter given twice (or as `name[]=`) is malformed, never silently the first or the last.
 */
export function portalOfferListQuery(query: Record<string, unknown>): PortalOfferListQuery {
  const errors: FieldErrors = {};
  const single = (field: string): string | undefined => {
    const raw = query[field];
    if (raw === undefined || typeof raw === 'string') return raw;
    errors[field] = ['must be given once, as a single value'];
    return undefined;
  };
  const status = single('status');
  const limit = single('limit');
  const before = single('before');

  const result: PortalOfferListQuery = { limit: PORTAL_OFFERS_DEFAULT_PAGE };
  if (status !== undefined) {
    if ((PORTAL_OFFER_STATUSES as readonly string[]).includes(status)) result.status = status as PortalOfferStatus;
    else errors.status = [`must be one of ${PORTAL_OFFER_STATUSES.join(', ')}`];
  }
  if (limit !== undefined) {
    if (/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= PORTAL_OFFERS_MAX_PAGE) result.limit = Number(limit);
    else errors.limit = [`must be a whole number from 1 to ${PORTAL_OFFERS_MAX_PAGE}`];
  }
  if (before !== undefined) {
    const cursor = decodeOfferCursor(before);
    if (cursor) result.before = cursor;
    else errors.before = ['must be the nextCursor of a previous page'];
  }
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
  return result;
}
