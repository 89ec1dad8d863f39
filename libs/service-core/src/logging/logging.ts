import type { IncomingMessage } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { LoggerModule, type Params } from 'nestjs-pino';
import type { ServiceConfig } from '../config/service.config.js';
import { currentRequestId, currentTraceId, newTraceId, REQUEST_ID_HEADER, saneRequestId } from '../tracing/trace-context.js';

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
 * Adds the trace id of the work in hand (see trace-context.ts) to every log line, and the caller's
 * own request id where it is not the trace id.
 */
function traceIdMixin(): object {
  const traceId = currentTraceId();
  if (!traceId) return {};
  const requestId = currentRequestId();
  return requestId !== undefined && requestId !== traceId ? { traceId, requestId } : { traceId };
}

export function loggerParams(serviceName: string, config: ServiceConfig): Params {
  return {
    // nestjs-pino's default route pattern matches no request on NestJS 12's Fastify adapter: every route, stated so it does.
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: {
      name: serviceName,
      level: config.LOG_LEVEL,
      // Probes and scrapes would drown the requests that matter.
      autoLogging: config.HTTP_REQUEST_LOGS ? { ignore: (req) => /^\/(health|metrics)(\/|\?|$)/.test((req as { originalUrl?: string }).originalUrl ?? req.url ?? '') } : false,
      genReqId: (req) => requestIdFor(req),
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
