import { HttpException } from '@nestjs/common';

/** Field name → messages, e.g. `{ "events[0].end": ["must be after start"] }`. */
export type FieldErrors = Record<string, string[]>;

/** RFC 9457 problem details, the body of every error response. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldErrors;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');
}

/** Problem types are documented in docs/errors.md; the slug says what went wrong. */
export function problemType(slug: string): string {
  return `https://availability.example/problems/${slug}`;
}

/**
 * The one exception domain code throws for a client-visible failure. It carries a full problem body,
 * so a controller never formats errors itself.
 */
export class ProblemException extends HttpException {
  readonly problem: ProblemDetails;

  constructor(status: number, slug: string, detail: string, errors?: FieldErrors, readonly headers: Record<string, string> = {}) {
    const problem: ProblemDetails = { type: problemType(slug), title: titleFor(status), status, detail };
    if (errors && Object.keys(errors).length > 0) problem.errors = errors;
    super(problem, status);
    this.problem = problem;
  }

  static validation(errors: FieldErrors, detail = 'The request is not valid; see errors for each field.'): ProblemException {
    return new ProblemException(400, 'validation-failed', detail, errors);
  }

  static field(field: string, message: string): ProblemException {
    return ProblemException.validation({ [field]: [message] }, message);
  }

  static notFound(what: string): ProblemException {
    return new ProblemException(404, 'not-found', `${what} was not found.`);
  }

  static conflict(slug: string, detail: string): ProblemException {
    return new ProblemException(409, slug, detail);
  }

  static unauthorized(detail: string): ProblemException {
    return new ProblemException(401, 'unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}
