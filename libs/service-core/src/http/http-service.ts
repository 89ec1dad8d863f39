import type { IncomingMessage } from 'node:http';
import { type DynamicModule, type INestApplication, Logger as NestLogger, type Type } from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { logRequests, requestIdFor } from '../logging/logging.js';
import { installMetrics } from '../metrics/http-metrics.js';
import { isServiceWorker } from '../process/service-processes.js';
import { requireNoEviction } from '../redis/eviction-policy.js';
import { redisTarget } from '../redis/redis-connection.js';
import { ApiVersionGuard } from './api-version.guard.js';
import { answerClientError, drainUnreadUpload } from './connection.js';
import { parameterProblems, parseJsonBody } from './json-input.js';
import { ProblemException } from './problem.js';
import { ProblemExceptionFilter, sendProblem } from './problem.filter.js';
import { withProblemDetails } from './openapi-errors.js';
import { installRateLimit, RATE_LIMIT_EXEMPT_PATH, RATE_LIMIT_PRINCIPALS, type RateLimitPrincipals, rateLimitOptions } from './rate-limit.js';
import { trustedProxies } from './trusted-proxies.js';
import type { ServiceConfig } from '../config/service.config.js';
import { traceRequests } from '../tracing/http-tracing.js';
import { REQUEST_ID_HEADER } from '../tracing/trace-context.js';
import { stopTracing } from '../tracing/tracing.js';
import { BodyValidationPipe } from './validation.js';

export interface HttpServiceOptions {
  /** The service's name (`offers-api`): what its rate limits are counted under. */
  service: string;
  /** Largest request body accepted, in bytes; larger ones get a 413 problem. */
  bodyLimit: number;
  openApi: { title: string; description: string; version: string };
  /** Extra OpenAPI security schemes, e.g. the API key header. */
  configureOpenApi?: (builder: DocumentBuilder) => DocumentBuilder;
  /** Per-credential limits (RATE_LIMIT_PER_MINUTE); false for a service that is not the platform's API (the example integrator). */
  rateLimit?: boolean;
  /** Keeps each JSON body's bytes as received (`rawBodyOf`), for a service that checks signatures over them. */
  keepRawBodies?: boolean;
}

type WithRawBody = FastifyRequest & { rawBody?: Buffer };

/** A request's JSON body exactly as received (empty when it had none), if its service keeps raw bodies. */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return (request as WithRawBody).rawBody ?? Buffer.alloc(0);
}

/**
 * Creates a service's HTTP application the one way every service does it: Fastify, problem+json for
 * every error, body validation, api-version checking, every request in its trace (W3C `traceparent`,
 * a span when tracing is on) and pino logs carrying the trace id, Prometheus metrics at /metrics, OpenAPI JSON at /openapi.json with its UI at /docs, and graceful
 * shutdown on SIGTERM.
 */
export async function createHttpService(
  module: Type<unknown> | DynamicModule,
  config: ServiceConfig,
  options: HttpServiceOptions,
): Promise<NestFastifyApplication> {
  // Every service that limits rates keeps them in Redis (some keep queues and sessions there too):
  // one that may evict is refused before anything is built on it.
  if (options.rateLimit !== false) await requireNoEviction(redisTarget(config));
  const logger = new NestLogger('HttpService');
  const trustProxy = trustedProxies(config.TRUST_PROXY);
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimit,
    genReqId: (req: IncomingMessage) => requestIdFor(req),
    requestIdHeader: false,
    // request.ip (per-address limits, logs) believes X-Forwarded-For from these proxies only.
    ...(trustProxy ? { trustProxy } : {}),
    routerOptions: { maxParamLength: 200 },
    // A client that stops sending mid-request gets a 408 and its connection closed, rather than
    // holding the request, and the process's graceful shutdown, open for ever (Fastify's default is
    // no limit). Node looks for such requests every second; it only does when the headers' own
    // timeout is no longer than the whole request's, which Node sets for itself only when both are
    // given as the server is built.
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    http: { connectionsCheckingInterval: 1_000, headersTimeout: config.HTTP_REQUEST_TIMEOUT_MS, requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS },
    // What the router and Node's HTTP parser reject before Nest sees a request is problem+json too.
    // The router answers before any hook runs, so it does what the onSend hook below does itself.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      void beforeAnswer(request, reply).then(() => sendProblem(reply, error, logger, request)),
    clientErrorHandler: answerClientError,
  });
  // First of all hooks, so everything a request does (Nest's middleware and guards too) is in its trace.
  traceRequests(adapter.getInstance());
  // bodyParser: false: the JSON parser is ours (below); Nest's would also accept url-encoded forms.
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  app.useGlobalFilters(new ProblemExceptionFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalGuards(new ApiVersionGuard());
  // A supervised worker stops on its supervisor's SIGTERM only (see runServiceProcesses).
  app.enableShutdownHooks(isServiceWorker() ? ['SIGTERM'] : undefined);

  const fastify = app.getHttpAdapter().getInstance();
  // Our APIs speak JSON only; any other body is a 415 problem rather than a string reaching a handler.
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  // Before any recursive code or the database sees a body: bounded shape, storable strings, no
  // reserved property names (so plain JSON.parse is safe: `__proto__` is refused, never assigned).
  const keepRaw = options.keepRawBodies === true;
  fastify.addContentTypeParser('application/json', { parseAs: keepRaw ? 'buffer' : 'string' }, (request, body, done) => {
    if (keepRaw) (request as WithRawBody).rawBody = body as Buffer;
    const parsed = parseJsonBody(keepRaw ? (body as Buffer).toString('utf8') : (body as string));
    if ('value' in parsed) return done(null, parsed.value);
    done(new ProblemException(400, parsed.slug, parsed.detail, parsed.problems), undefined);
  });
  fastify.addHook('onRequest', async (request) => {
    const problems = parameterProblems(request.query) ?? parameterProblems(request.params);
    if (problems) throw ProblemException.validation(problems);
  });
  fastify.addHook('onSend', async (request, reply) => beforeAnswer(request, reply));
  if (config.HTTP_REQUEST_LOGS) logRequests(fastify, PinoLogger.root);
  // The last thing the application closes: spans of its shutdown (the relay's last publishes) go too.
  fastify.addHook('onClose', () => stopTracing());
  installMetrics(fastify, { token: config.METRICS_TOKEN });
  if (options.rateLimit !== false) await installRateLimit(fastify, { ...rateLimitOptions(config, options.service), principals: optionalProvider<RateLimitPrincipals>(app, RATE_LIMIT_PRINCIPALS) });

  setUpOpenApi(app, options);
  return app;
}

/**
 * A provider some services' modules have (the rate limit's principals), or undefined. Asked of the
 * ModuleRef: the application's own get() would end the process when the provider is missing.
 */
function optionalProvider<T>(app: INestApplication, token: symbol): T | undefined {
  try {
    return app.get(ModuleRef).get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

/** Every answer names its request id, and waits for the rest of an upload it did not read (see drainUnreadUpload). */
async function beforeAnswer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header(REQUEST_ID_HEADER, request.id);
  await drainUnreadUpload(request, reply);
}

function setUpOpenApi(app: INestApplication, options: HttpServiceOptions): void {
  let builder = new DocumentBuilder()
    .setTitle(options.openApi.title)
    .setDescription(options.openApi.description)
    .setVersion(options.openApi.version);
  if (options.configureOpenApi) builder = options.configureOpenApi(builder);
  const rateLimited = (path: string) => options.rateLimit !== false && !RATE_LIMIT_EXEMPT_PATH.test(path);
  const document = withProblemDetails(SwaggerModule.createDocument(app, builder.build()), rateLimited);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
}
