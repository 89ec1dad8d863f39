import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The pages of the web application: each answers with its one HTML document, which routes in the browser. */
export const PAGE_ROUTES = [
  '/',
  '/sign-in',
  '/profile',
  '/webhooks',
  '/signing-keys',
  '/invites',
  '/offers',
  '/offers/:offerId',
  '/worker',
  '/worker/sign-in',
  '/worker/offers/:offerId',
  '/worker/notifications',
  '/worker/contacts',
  '/join',
];

/** First path segments that are never pages: the forwarding, the session, files, and the service's own endpoints. */
const NOT_PAGES = new Set(['api', 'session', 'assets', 'health', 'metrics', 'docs']);

/**
 * A browser asking for a page the application does not have (`/nope`): answered with the document,
 * as a 404, so the page says "page not found" with a way back. A file (a dot in the last segment),
 * a call to an API or anything not asking for HTML stays a 404 problem.
 */
export function isUnknownPage(request: Pick<FastifyRequest, 'headers' | 'url'>): boolean {
  const path = request.url.split('?', 1)[0] ?? '';
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments.length === 0 || NOT_PAGES.has(segments[0]) || segments.at(-1)?.includes('.')) return false;
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

/**
 * The page may load only the portal's own scripts, styles and images and talk only to the portal:
 * suggested contacts' pictures are the platform's copies (contact-directory fetches them), so no
 * provider sees a visitor's browser; `data:` is the empty favicon. No other site may frame it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** The built web application next to this service (`dist/apps/portal/web`), unless PORTAL_WEB_DIR says otherwise. */
export function webDirectory(configured: string): string {
  return configured !== '' ? configured : fileURLToPath(new URL('../../web', import.meta.url));
}

/** Serves the built pages: hashed assets cached for good, the HTML document never cached. */
export async function installWebApp(fastify: FastifyInstance, directory: string): Promise<void> {
  if (!existsSync(`${directory}/index.html`)) throw new Error(`The portal's web application is not built (no index.html in ${directory}); run npm run build.`);
  fastify.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  });
  await fastify.register(fastifyStatic, {
    root: directory,
    wildcard: false,
    index: false,
    setHeaders: (reply, path) => {
      const immutable = path.includes('/assets/');
      reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  for (const url of PAGE_ROUTES) {
    fastify.get(url, (_request, reply) => reply.header('cache-control', 'no-cache').sendFile('index.html'));
  }
  // Routed last: every other route is more specific, so this sees only paths nothing else serves.
  fastify.get('/*', (request, reply) => {
    if (!isUnknownPage(request)) return reply.callNotFound();
    return reply.code(404).header('cache-control', 'no-cache').sendFile('index.html');
  });
}
