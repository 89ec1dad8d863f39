import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../database/database-unavailable.js';
import { PROBLEM_CONTENT_TYPE, ProblemException, type ProblemDetails, problemType, titleFor } from './problem.js';

/** What Fastify itself raises before a request reaches Nest (body parsing, limits, routing). */
const FASTIFY_ERRORS: Record<string, { slug: string; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { slug: 'unsupported-media-type', detail: 'Send the body as application/json.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { slug: 'payload-too-large', detail: 'The request body is larger than this endpoint accepts.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { slug: 'malformed-json', detail: 'The body is empty but Content-Type says application/json.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { slug: 'malformed-json', detail: 'The body is not valid JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { slug: 'bad-request', detail: 'Content-Length does not match the body.' },
  FST_ERR_BAD_URL: { slug: 'bad-request', detail: 'The request URL is not valid (a percent-escape that is not UTF-8?).' },
  FST_ERR_MAX_PARAM_LENGTH: { slug: 'uri-too-long', detail: 'A path segment of the URL is longer than 200 characters.' },
};

const DATABASE_UNAVAILABLE = problemType('database-unavailable');

/** Turns any error into an RFC 9457 problem+json response; unknown errors become a bare 500. */
export function toProblem(error: unknown): { problem: ProblemDetails; headers: Record<string, string> } {
  if (error instanceof ProblemException) return { problem: error.problem, headers: error.headers };
  if (isDatabaseUnavailable(error)) {
    return {
      problem: { type: DATABASE_UNAVAILABLE, title: titleFor(503), status: 503, detail: 'The database could not be reached; retry shortly.' },
      headers: { 'retry-after': '1' },
    };
  }

  // Nest's Fastify adapter wraps some Fastify errors in an HttpException, keeping the original as cause.
  const code = (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  if (code && FASTIFY_ERRORS[code]) {
    const status = error instanceof HttpException ? error.getStatus() : ((error as { statusCode?: number }).statusCode ?? 400);
    const { slug, detail } = FASTIFY_ERRORS[code];
    return { problem: { type: problemType(slug), title: titleFor(status), status, detail }, headers: {} };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return { problem: { type: problemType('malformed-json'), title: titleFor(400), status: 400, detail: 'The body is not valid JSON.' }, headers: {} };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const slug = status === 404 ? 'not-found' : status === 405 ? 'method-not-allowed' : 'http-error';
    const response = error.getResponse();
    const detail =
      status === 404 ? 'No such resource.' : typeof response === 'string' ? response : (error.message ?? titleFor(status));
    return { problem: { type: problemType(slug), title: titleFor(status), status, detail }, headers: {} };
  }
  const status = (error as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { problem: { type: problemType('bad-request'), title: titleFor(status), status, detail: titleFor(status) }, headers: {} };
  }
  return {
    problem: { type: problemType('internal'), title: titleFor(500), status: 500, detail: 'Something went wrong on our side; it has been logged.' },
    headers: {},
  };
}

export function sendProblem(reply: FastifyReply, error: unknown, logger: Logger, request?: FastifyRequest): void {
  const { problem, headers } = toProblem(error);
  // An outage is the operator's to see, once per request, but it is no bug of ours.
  if (problem.type === DATABASE_UNAVAILABLE) logger.warn({ err: error, reqId: request?.id }, 'database unavailable: answered 503');
  else if (problem.status >= 500) logger.error({ err: error, reqId: request?.id }, 'unhandled error');
  void reply.status(problem.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

@Catch()
export class ProblemExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemExceptionFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(http.getResponse<FastifyReply>(), error, this.logger, http.getRequest<FastifyRequest>());
  }
}
