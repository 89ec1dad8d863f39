import type { FastifyInstance } from 'fastify';
import { adminTokenMatches, bearerToken } from '../http/bearer-token.js';
import { PROBLEM_CONTENT_TYPE, problemType, titleFor } from '../http/problem.js';
import { clusterMetrics, isServiceWorker, shareMetricsWithSupervisor } from '../process/service-processes.js';
import { collectProcessMetrics, histogram, LATENCY_BUCKETS_SECONDS, metricsRegistry } from './metrics.js';

export interface MetricsEndpointOptions {
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * Serves the registry at `GET /metrics` (Prometheus text format) and times every request into
 * `http_request_duration_seconds`, labelled by route template (`/offer/:id`, never the raw URL, so
 * ids cannot explode the number of series).
 */
export function installMetrics(fastify: FastifyInstance, options: MetricsEndpointOptions): void {
  collectProcessMetrics();
  // A worker of a supervised service answers for all its processes: the port is shared, a scrape reaches any one.
  const supervised = isServiceWorker();
  if (supervised) shareMetricsWithSupervisor(metricsRegistry);
  const requests = histogram(
    'http_request_duration_seconds',
    'Time from request received to response sent, by method, route template and status code.',
    ['method', 'route', 'status_code'],
    LATENCY_BUCKETS_SECONDS,
  );
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') requests.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  const token = options.token;
  fastify.get('/metrics', async (request, reply) => {
    if (token && !adminTokenMatches(bearerToken(request.headers.authorization), token)) {
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer')
        .type(PROBLEM_CONTENT_TYPE)
        .send({ type: problemType('unauthorized'), title: titleFor(401), status: 401, detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' });
    }
    return reply.type(metricsRegistry.contentType).send(supervised ? await clusterMetrics() : await metricsRegistry.metrics());
  });
}
