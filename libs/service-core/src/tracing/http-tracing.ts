import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER, runInContext, saneRequestId, startSpan, tracingOn, withHttpRequest } from './trace-context.js';

/**
 * Runs every request in its trace from its first hook on (so guards, the body parser's callbacks,
 * handlers and the request's logs all see it): the caller's `traceparent` continued, or a new trace.
 * With tracing on, the request is a server span, ended when the response is done. The request id is
 * the caller's sane `x-request-id`, or else the trace id, so a response always names its trace.
 * Added before any other hook.
 */
export function traceRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const on = tracingOn();
    const started = startSpan(on ? spanName(request) : '', {
      kind: SpanKind.SERVER,
      from: request.headers,
      attributes: on ? { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_HTTP_ROUTE]: request.routeOptions.url, [ATTR_URL_PATH]: pathOf(request.url) } : undefined,
    });
    const span = started.span;
    if (span) reply.raw.once('close', () => endRequestSpan(span, reply));
    request.id = saneRequestId(request.headers[REQUEST_ID_HEADER]) ?? trace.getSpanContext(started.context)?.traceId ?? request.id;
    runInContext(withHttpRequest(started.context, { id: request.id, method: request.method, url: request.url }), done);
  });
}

function spanName(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  return route ? `${request.method} ${route}` : request.method;
}

/** The path without the query, which may carry what does not belong in a trace. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function endRequestSpan(span: Span, reply: FastifyReply): void {
  const status = reply.raw.statusCode;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (!reply.raw.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response was sent' });
  else if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
