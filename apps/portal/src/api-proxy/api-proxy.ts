import proxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException, sendProblem } from '@availability/service-core';
import type { PortalConfig } from '../config/portal.config.js';
import type { PortalSession } from '../session/portal-session.js';
import type { SessionCookie } from '../session/session-cookie.js';
import { mayCall, type UpstreamService } from './upstream-paths.js';

type ProxiedRequest = FastifyRequest & { portalSession?: PortalSession };

const UPSTREAM_TIMEOUT_MS = 15_000;

/** Headers a page may not pass on: the cookie stays here, and the credential is the session's. */
const DROPPED_HEADERS = ['cookie', 'authorization', 'x-api-key', 'x-admin-token', 'forwarded', 'x-forwarded-for', 'x-forwarded-host'];

/**
 * `/api/<service>/…` → the service, as the signed-in person: the session's token becomes the
 * request's bearer credential. The pages never hold a token (a request from another site's page is
 * refused before it gets here: refuseCrossSiteChanges).
 */
export async function installApiProxy(fastify: FastifyInstance, config: PortalConfig, cookie: SessionCookie): Promise<void> {
  const upstreams: Record<UpstreamService, string> = {
    directory: config.DIRECTORY_URL,
    offers: config.OFFERS_API_URL,
    notifications: config.NOTIFICATION_SERVICE_URL,
    webhooks: config.WEBHOOK_DISPATCHER_URL,
  };
  const logger = new Logger('ApiProxy');
  // Its own scope, so what the proxy's routes refuse is answered as problem+json like the rest.
  await fastify.register(async (scope) => {
    scope.setErrorHandler((error, request, reply) => sendProblem(reply, error, logger, request));
    // Bodies pass through as the page sent them (bounded by the body limit): the service parses and checks them.
    scope.removeAllContentTypeParsers();
    for (const [name, upstream] of Object.entries(upstreams)) {
      await scope.register(proxy, proxyOptions(name, upstream));
    }
  });

  function proxyOptions(name: string, upstream: string): FastifyHttpProxyOptions {
    const prefix = `/api/${name}`;
    return {
      upstream,
      prefix,
      undici: { headersTimeout: UPSTREAM_TIMEOUT_MS, bodyTimeout: UPSTREAM_TIMEOUT_MS },
      preHandler: async (request: ProxiedRequest) => {
        const session = await cookie.require(request);
        const path = request.url.slice(prefix.length).split('?', 1)[0] ?? '';
        if (!mayCall(session.person.kind, path)) throw ProblemException.notFound('That page of the portal');
        request.portalSession = session;
      },
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => {
          const forwarded: Record<string, unknown> = { ...headers };
          for (const header of DROPPED_HEADERS) delete forwarded[header];
          forwarded.authorization = `Bearer ${(request as ProxiedRequest).portalSession?.token ?? ''}`;
          return forwarded as typeof headers;
        },
        onError: (reply) => {
          const problem = new ProblemException(503, 'service-unavailable', `The ${name} service did not answer; try again shortly.`, undefined, { 'Retry-After': '1' });
          sendProblem(reply as unknown as FastifyReply, problem, logger);
        },
      },
    };
  }
}
