import type { FastifyInstance } from 'fastify';
import { ProblemException } from '@availability/service-core';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request may act for the session its cookie carries (cross-site request forgery). The
 * cookie is SameSite=Strict already; beyond that a request that changes anything must show it comes
 * from a page of the portal itself: browsers send `Origin` on every such request, and
 * `Sec-Fetch-Site` where they send no `Origin`. A request with neither is refused: every browser
 * the portal supports sends one of them.
 */
export function isSameOriginRequest(method: string, headers: Record<string, string | string[] | undefined>, portalOrigin: string): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const origin = headers.origin;
  if (typeof origin === 'string') return origin === portalOrigin;
  return headers['sec-fetch-site'] === 'same-origin';
}

export function crossSiteRefused(): ProblemException {
  return new ProblemException(403, 'cross-site-request', 'Changes can be made only from the portal’s own pages.');
}

/**
 * The check on every request of the portal, before any route runs: the session endpoints and all
 * that `/api/…` forwards alike, so no route can be added without it.
 */
export function refuseCrossSiteChanges(fastify: FastifyInstance, portalUrl: string): void {
  const origin = portalOrigin(portalUrl);
  fastify.addHook('onRequest', async (request) => {
    if (!isSameOriginRequest(request.method, request.headers, origin)) throw crossSiteRefused();
  });
}

/** The origin (scheme, host, port) of PORTAL_URL, which its configuration has checked is an http(s) URL. */
export function portalOrigin(portalUrl: string): string {
  return new URL(portalUrl).origin;
}
