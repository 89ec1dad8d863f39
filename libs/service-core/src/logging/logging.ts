import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { LoggerModule, type Params } from 'nestjs-pino';
import type { BaseLogger } from 'pino';
import type { ServiceConfig } from '../config/service.config.js';
import { currentHttpRequest, currentRequestId, currentTraceId, newTraceId, REQUEST_ID_HEADER, saneRequestId } from '../tracing/trace-context.js';

/** Headers that carry credentials; pino replaces them with "[redacted]" in every log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-admin-token"]',
];

/**
 * A request's id: the one of its trace (see traceRequests) once it is in one; before that the
 * caller's, if sane, or a fresh id that traceRequests replaces with the trace id.
 */
export function requestIdFor(req: IncomingMessage): string {
  return currentRequestId() ?? saneRequestId(req.headers[REQUEST_ID_HEADER]) ?? newTraceId();
}

/**
 * Adds the trace id of the work in hand (see trace-context.ts) to every log line, the caller's own
 * request id where it is not the trace id, and the HTTP request's id, method and URL inside one.
 * Called only for lines written, so the request path pays nothing for it.
 */
function traceIdMixin(): object {
  const traceId = currentTraceId();
  const request = currentHttpRequest();
  const requestId = currentRequestId();
  return {
    ...(traceId ? { traceId } : {}),
    ...(requestId !== undefined && requestId !== traceId ? { requestId } : {}),
    ...(request ? { req: request } : {}),
  };
}

export function loggerParams(serviceName: string, config: ServiceConfig): Params {
  return {
    // No per-request middleware: it would run Nest's Express-style middleware chain and build a child
    // logger for every request. A request's lines carry its trace id (the mixin); the line per
    // request is a Fastify hook's (logRequests).
    forRoutes: [],
    pinoHttp: {
      name: serviceName,
      level: config.LOG_LEVEL,
      autoLogging: false,
      mixin: traceIdMixin,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      },
    },
  };
}

export function createLoggerModule(serviceName: string, config: ServiceConfig) {
  return LoggerModule.forRoot(loggerParams(serviceName, config));
}

/** Probes and scrapes would drown the requests that matter. */
const UNLOGGED_PATH = /^\/(health|metrics)(\/|\?|$)/;

/**
 * One line per answered request (`request completed`: the request's id, method and URL, the status
 * and the milliseconds taken), at error level for a 5xx.
 */
export function logRequests(fastify: FastifyInstance, logger: BaseLogger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!UNLOGGED_PATH.test(request.url)) {
      const line = {
        req: { id: request.id, method: request.method, url: request.url },
        // Not under `res`: pino-http's serializer of that key reads a response object, not a number.
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime),
      };
      if (reply.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    }
    done();
  });
}
