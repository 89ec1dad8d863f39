import { createHmac } from 'node:crypto';
import { PORTAL_UPSTREAMS, type PortalPersonKind, type PortalSessions } from './world.js';

type Headers = Record<string, string | string[]>;

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];
/** Characters of a path the portal forwards (its own rule, apps/portal/src/api-proxy/upstream-paths.ts). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~/]*$/;

export const sessionCookie = (value: string) => `portal_session=${value}`;

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
 * secret, tampered with, and (signed with the portal's own secret, as only the portal could) expired,
 * of the wrong shape or claiming another kind of person; and what a careless client writes.
 */
export function forgedCookies(portal: PortalSessions): Array<string | string[]> {
  const sign = (value: string, secret: string) => `${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=/g, '')}`;
  const cookie = (value: string) => sessionCookie(encodeURIComponent(value));
  const signed = decodeURIComponent(portal.homeAdmin);
  const payload = signed.slice(0, signed.lastIndexOf('.'));
  const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { token: string; person: Record<string, unknown> };
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const genuine = (value: unknown) => cookie(sign(encode(value), portal.cookieSecret));
  const flipped = `${payload.slice(0, 10)}${payload[10] === 'A' ? 'B' : 'A'}${payload.slice(11)}`;
  return [
    sessionCookie(portal.revoked),
    cookie(payload),
    cookie(sign(payload, 'some-other-secret-0123456789')),
    cookie(`${flipped}${signed.slice(payload.length)}`),
    sessionCookie(`${portal.homeAdmin}x`),
    genuine({ ...session, person: { ...session.person, expiresAt: '2001-01-01T00:00:00.000Z' } }),
    genuine({ ...session, person: { ...session.person, kind: 'worker' } }),
    genuine({ token: `put_${'A'.repeat(43)}`, person: session.person }),
    genuine({ token: `wkt_${'A'.repeat(43)}`, person: { ...session.person, kind: 'worker' } }),
    genuine({ ...session, person: null }),
    genuine({ ...session, person: { ...session.person, expiresAt: 'never' } }),
    genuine({ __proto__: { token: session.token }, person: session.person }),
    genuine([session]),
    genuine(null),
    cookie(sign('not base64 json', portal.cookieSecret)),
    cookie(sign('x'.repeat(4_000), portal.cookieSecret)),
    'portal_session=',
    'portal_session',
    'portal_session=%',
    'portal_session=%E0%A4%A',
    `PORTAL_SESSION=${portal.homeAdmin}`,
    `portal_session=${'a'.repeat(5_000)}`,
    `portal_session=${portal.revoked}; portal_session=${portal.homeAdmin}`,
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
      const kind = name === 'portal_session' ? portal.kinds.get(value.join('=')) : undefined;
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
