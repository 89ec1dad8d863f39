import type { ProblemDetails } from './types.js';

/**
 * A call the offers API refused: the RFC 9457 problem details it answered with (every error of the
 * API is `application/problem+json`), and how long it asked to be left alone, if it said.
 */
export class OffersApiError extends Error {
  /** The HTTP status, e.g. 400, 404, 409, 429. */
  readonly status: number;
  /** The problem type URI; its last segment names the problem (`…/validation-failed`, `…/rate-limited`). */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** Messages by field path (`title`, `events[0].end`, `[1]` for an element of a bare array); empty when no field is at fault. */
  readonly errors: Readonly<Record<string, readonly string[]>>;
  /** The body as received (or, when the body was not problem+json, one made from the status). */
  readonly problem: ProblemDetails;
  /** Seconds the API asks a client to wait before trying again (Retry-After, sent with 429 and 503); undefined when it did not say. */
  readonly retryAfterSeconds: number | undefined;
  /** The call that failed, e.g. `POST /offer`. */
  readonly operation: string;

  constructor(operation: string, problem: ProblemDetails, retryAfterSeconds?: number) {
    super(describe(operation, problem));
    this.name = 'OffersApiError';
    this.operation = operation;
    this.problem = problem;
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? {};
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The last segment of {@link type}: `validation-failed`, `not-found`, `offer-complete`, `rate-limited`, … */
  get problemName(): string {
    return this.type.slice(this.type.lastIndexOf('/') + 1);
  }

  /** The error for a response that is not a success, from its parsed body (undefined when it had none). */
  static fromResponse(operation: string, response: Response, body: unknown): OffersApiError {
    return new OffersApiError(operation, asProblem(response, body), retryAfterSeconds(response.headers));
  }
}

/**
 * The wait a Retry-After header asks for, in whole seconds: either form HTTP allows (a number of
 * seconds, or a date); undefined when the header is absent or unreadable.
 */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date names its day and month; this keeps Date.parse from reading `-3` as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function asProblem(response: Response, body: unknown): ProblemDetails {
  if (isProblem(body)) return body;
  // Something other than the API answered (a proxy, a load balancer): RFC 9457's default type stands in.
  return {
    type: 'about:blank',
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    detail: typeof body === 'string' ? body.slice(0, 500) : '',
  };
}

function isProblem(body: unknown): body is ProblemDetails {
  if (typeof body !== 'object' || body === null) return false;
  const { type, title, status, detail, errors } = body as Record<string, unknown>;
  return (
    typeof type === 'string' &&
    typeof title === 'string' &&
    typeof status === 'number' &&
    typeof detail === 'string' &&
    (errors === undefined || (typeof errors === 'object' && errors !== null))
  );
}

function describe(operation: string, problem: ProblemDetails): string {
  const fields = Object.entries(problem.errors ?? {}).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
  const detail = problem.detail ? `: ${problem.detail}` : '';
  return `${operation} answered ${problem.status} ${problem.title}${detail}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
}
