import { ProblemException } from './problem.js';

export interface Page {
  limit: number;
  /** Cursor: the `nextCursor` of the previous page (an id; rows older than it come next). */
  before?: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** A whole number from 1 to `max` in a query parameter, or a 400 problem naming the parameter. */
export function positiveIntegerParam(field: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || value < 1 || value > max) {
    throw ProblemException.field(field, `must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** The `?limit=&before=` of a newest-first list, checked the same way by every service. */
export function pageFromQuery(limit: string | undefined, before: string | undefined): Page {
  return {
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : positiveIntegerParam('limit', limit, MAX_PAGE_SIZE),
    before: before === undefined ? undefined : positiveIntegerParam('before', before),
  };
}
