import { createHmac, randomBytes } from 'node:crypto';
import { PORTAL_UPSTREAMS, type PortalPersonKind, type PortalSessions } from './world.js';

type Headers = Record<string, string | string[]>;

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];
/** Characters of a path the portal forwards (its own rule, apps/portal/src/api-proxy/upstream-paths.ts). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~/]*$/;

/** The portal's session cookie (apps/portal/src/session/session-cookie.ts): a signed random session id. */
export const SESSION_COOKIE = '__Host-portal_session';

export const sessionCookie = (value: string) => `${SESSION_COOKIE}=${value}`;

/** The header a browser on one of the portal's pages adds to a request that changes something. */
export function sameOriginHeaders(portal: PortalSessions): Headers[] {
  return [{ origin: portal.origin }, { 'sec-fetch-site': 'same-origin' }];
}

/** What another site's page, an old browser or a script might send instead of the portal's origin. */
export function crossSiteHeaders(portal: PortalSessions): Headers[] {
  const url = new URL(portal.origin);
  return [
    {},
    { origin: 'null' },
    { origin: '' },
    { origin: 'https://evil.example' },
    { origin: `${portal.origin}/` },
    { origin: portal.origin.toUpperCase() },
    { origin: `${portal.origin}.evil.example` },
    { origin: `${url.protocol}//${url.hostname}:${Number(url.port) + 1}` },
    { origin: `https://${url.host}` },
    { origin: `http://127.0.0.1:${url.port}` },
    { origin: [portal.origin, 'https://evil.example'] },
    { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { 'sec-fetch-site': 'none' },
    { 'sec-fetch-site': ['same-origin', 'cross-site'] },
    { referer: `${portal.origin}/offers` },
  ];
}

/**
 * Cookies that are not a live session of the seeded people: signed out, unsigned, signed with another
 * secret, tampered with; signed with the portal's own secret (as only the portal could sign them) yet
 * an id it never gave, of the wrong shape, or a live token itself; the cookie as it once was (the
 * session, token and all, signed), under its old name or the new; the live id under the name without
 * `__Host-` or re-cased; and what a careless client writes.
 */
export function forgedCookies(portal: PortalSessions): Array<string | string[]> {
  const sign = (value: string, secret: string) => `${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=/g, '')}`;
  const cookie = (value: string, name = SESSION_COOKIE) => `${name}=${encodeURIComponent(value)}`;
  const genuine = (value: string, name = SESSION_COOKIE) => cookie(sign(value, portal.cookieSecret), name);
  const signed = decodeURIComponent(portal.homeAdmin);
  const id = signed.slice(0, signed.lastIndexOf('.'));
  const flipped = `${id.slice(0, 10)}${id[10] === 'A' ? 'B' : 'A'}${id.slice(11)}`;
  const asItWas = Buffer.from(JSON.stringify({ token: portal.liveToken, person: { kind: 'portal-user', id: 'u', name: 'n', expiresAt: '2999-01-01T00:00:00.000Z' } }), 'utf8').toString('base64url');
  return [
    sessionCookie(portal.revoked),
    cookie(id),
    cookie(sign(id, 'some-other-secret-0123456789')),
    cookie(`${flipped}${signed.slice(id.length)}`),
    sessionCookie(`${portal.homeAdmin}x`),
    genuine(randomBytes(32).toString('base64url')),
    genuine(id.slice(1)),
    genuine(`${id}A`),
    genuine(portal.liveToken),
    genuine(asItWas),
    genuine(asItWas, 'portal_session'),
    genuine('not base64 json'),
    genuine('x'.repeat(4_000)),
    `portal_session=${portal.homeAdmin}`,
    `__host-portal_session=${portal.homeAdmin}`,
    `__Host-Portal_Session=${portal.homeAdmin}`,
    `${SESSION_COOKIE}=`,
    SESSION_COOKIE,
    `${SESSION_COOKIE}=%`,
    `${SESSION_COOKIE}=%E0%A4%A`,
    `${SESSION_COOKIE}=${'a'.repeat(5_000)}`,
    `${SESSION_COOKIE}=${portal.revoked}; ${SESSION_COOKIE}=${portal.homeAdmin}`,
    [sessionCookie(portal.revoked), sessionCookie(portal.homeAdmin)],
  ];
}

const headerValues = (headers: Record<string, string | string[] | undefined>, name: string) =>
  Object.entries(headers)
    .filter(([key]) => key.toLowerCase() === name)
    .flatMap(([, value]) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));

/** The kinds of person the live session cookies of a request sign in (none for forged, revoked or absent ones). */
export function sessionKinds(portal: PortalSessions, headers: Record<string, string | string[] | undefined>): Set<PortalPersonKind> {
  const kinds = new Set<PortalPersonKind>();
  for (const header of headerValues(headers, 'cookie')) {
    for (const pair of header.split(';')) {
      const [name, ...value] = pair.trim().split('=');
      const kind = name === SESSION_COOKIE ? portal.kinds.get(value.join('=')) : undefined;
      if (kind) kinds.add(kind);
    }
  }
  return kinds;
}

/** Whether a request shows it comes from a page of the portal, as the portal's CSRF rule reads it. */
export function isSameOrigin(portal: PortalSessions, headers: Record<string, string | string[] | undefined>): boolean {
  const origins = headerValues(headers, 'origin');
  if (origins.length > 0) return origins.length === 1 && origins[0] === portal.origin;
  const fetchSite = headerValues(headers, 'sec-fetch-site');
  return fetchSite.length === 1 && fetchSite[0] === 'same-origin';
}

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.includes(method.toUpperCase());
}

/**
 * Whether a path under `/api/` may be answered with a 2xx for these sessions: a proxied service,
 * then a plain path (no dots, escapes or empty segments) under the session's area, `/portal/…` for
 * portal users and `/worker/…` for workers.
 */
export function inSessionArea(path: string, kinds: Set<PortalPersonKind>): boolean {
  const match = /^\/api\/([^/?#]*)([^?#]*)/.exec(path);
  if (!match) return true;
  const [, service, rest] = match;
  if (!Object.hasOwn(PORTAL_UPSTREAMS, service) || !PLAIN_PATH.test(rest) || rest.includes('//')) return false;
  return [...kinds].some((kind) => {
    const area = kind === 'worker' ? '/worker/' : '/portal/';
    return rest.startsWith(area) && rest.length > area.length;
  });
}
