import { ProblemException } from './problem.js';

export interface Page {
  limit: number;
  /** Cursor: the `nextCursor` of the previous page (an id; rows older than it come next). */
  before?: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/**
 * A query parameter given at most once: its value, or undefined when absent. A repeated one
 * (`?status=a&status=b`) is a 400 naming it, never silently the first or the last.
 */
export function singleQueryParam(field: string, raw: unknown): string | undefined {
  if (raw === undefined || typeof raw === 'string') return raw;
  throw ProblemException.field(field, 'must be given once, as a single value');
}

/**
 * A whole number from 1 to `max` in a query parameter, or a 400 problem naming the parameter. Digits
 * only (no `1e3`, `0x10`, `1.0`), and at most Number.MAX_SAFE_INTEGER, so the value is exact and
 * fits PostgreSQL's bigint.
 */
export function positiveIntegerParam(field: string, raw: unknown, max = Number.MAX_SAFE_INTEGER): number {
  const text = singleQueryParam(field, raw) ?? '';
  const value = Number(text);
  if (!/^\d{1,16}$/.test(text) || value < 1 || value > Math.min(max, Number.MAX_SAFE_INTEGER)) {
    throw ProblemException.field(field, `must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** The `?limit=&before=` of a newest-first list, checked the same way by every service. */
export function pageFromQuery(limit: unknown, before: unknown, maxPageSize = MAX_PAGE_SIZE): Page {
  return {
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : positiveIntegerParam('limit', limit, maxPageSize),
    before: before === undefined ? undefined : positiveIntegerParam('before', before),
  };
}
