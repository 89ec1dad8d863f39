import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { JobQueues, QueueName } from '@availability/jobs';
import { ProblemException, sendProblem } from '@availability/service-core';
import { Logger } from '@nestjs/common';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { adminTokenMatches, bearerToken } from '@availability/auth';
import { ADMIN_AUTH_HINT } from './admin-auth.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Bull Board (the BullMQ dashboard) at /admin/queues, on the service's own Fastify instance, behind
 * the operator token. It is a plain Fastify plugin next to the Nest routes: the token check is an
 * onRequest hook of its encapsulated scope, so it guards every page, asset and API call of the board.
 */
export async function mountQueueDashboard(app: NestFastifyApplication): Promise<void> {
  const config = app.get(WebhookDispatcherConfig);
  const jobs = app.get(JobQueues);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  // @bull-board/fastify pins its own copy of @bull-board/api (a patch version apart): same shape, distinct types.
  createBullBoard({ queues: [new BullMQAdapter(jobs.queue(QueueName.WebhookDelivery))], serverAdapter });
  const logger = new Logger('QueueDashboard');
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (!adminTokenMatches(bearerToken(request.headers.authorization), config.DISPATCHER_ADMIN_TOKEN)) {
          sendProblem(reply, ProblemException.unauthorized(ADMIN_AUTH_HINT), logger, request);
          return reply;
        }
      });
      await scope.register(serverAdapter.registerPlugin() as never);
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}
