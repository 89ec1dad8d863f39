import type { IncomingMessage } from 'node:http';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { REQUEST_ID_HEADER, requestIdFor } from '../logging/logging.js';
import { installMetrics } from '../metrics/http-metrics.js';
import { isServiceWorker } from '../process/service-processes.js';
import { ApiVersionGuard } from './api-version.guard.js';
import { ProblemExceptionFilter } from './problem.filter.js';
import { TraceInterceptor } from './trace.interceptor.js';
import { BodyValidationPipe } from './validation.js';

export interface HttpServiceOptions {
  /** Largest request body accepted, in bytes; larger ones get a 413 problem. */
  bodyLimit: number;
  openApi: { title: string; description: string; version: string };
  /** Extra OpenAPI security schemes, e.g. the API key header. */
  configureOpenApi?: (builder: DocumentBuilder) => DocumentBuilder;
  /** `METRICS_TOKEN`: when set, `GET /metrics` needs it as a bearer token. */
  metricsToken?: string;
}

/**
 * Creates a service's HTTP application the one way every service does it: Fastify, problem+json for
 * every error, body validation, api-version checking, pino logs with the request id as trace id,
 * Prometheus metrics at /metrics, OpenAPI JSON at /openapi.json with its UI at /docs, and graceful
 * shutdown on SIGTERM.
 */
export async function createHttpService(module: Type<unknown> | DynamicModule, options: HttpServiceOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimit,
    genReqId: (req: IncomingMessage) => requestIdFor(req),
    requestIdHeader: false,
    routerOptions: { maxParamLength: 200 },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.useGlobalFilters(new ProblemExceptionFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalGuards(new ApiVersionGuard());
  app.useGlobalInterceptors(new TraceInterceptor());
  // A supervised worker stops on its supervisor's SIGTERM only (see runServiceProcesses).
  app.enableShutdownHooks(isServiceWorker() ? ['SIGTERM'] : undefined);

  const fastify = app.getHttpAdapter().getInstance();
  // Our APIs speak JSON only; any other body is a 415 problem rather than a string reaching a handler.
  fastify.removeContentTypeParser(['text/plain']);
  fastify.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  installMetrics(fastify, { token: options.metricsToken });

  setUpOpenApi(app, options);
  return app;
}

function setUpOpenApi(app: INestApplication, options: HttpServiceOptions): void {
  let builder = new DocumentBuilder()
    .setTitle(options.openApi.title)
    .setDescription(options.openApi.description)
    .setVersion(options.openApi.version);
  if (options.configureOpenApi) builder = options.configureOpenApi(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
}
