import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sign } from '@fastify/cookie';
import { type HttpResult, request } from '@availability/platform-client';
import { freePort, ServiceProcess } from '@availability/testing';
import { encodeSession, type PortalSession } from '../src/session/portal-session.js';

/**
 * The portal on its own, as a browser and an attacker meet it: the pages with their security
 * headers, the session endpoints' checks, and the forwarding refused without a genuine session, for
 * the wrong area, from another site, or answered 503 while a service is down. (With every service
 * behind it: tools/e2e/test/portal-browser.spec.ts.)
 */
const COOKIE_SECRET = 'portal-int-cookie-secret-0123456789abcdef';
let portal: ServiceProcess;
let origin: string;

function problemOf(result: HttpResult): { slug: string; status: number; errors?: Record<string, string[]> } {
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = result.json as { type: string; status: number; errors?: Record<string, string[]> };
  expect(problem.status).toBe(result.status);
  return { ...problem, slug: problem.type.slice(problem.type.lastIndexOf('/') + 1) };
}

function sessionCookie(session: PortalSession, secret = COOKIE_SECRET): string {
  return `portal_session=${encodeURIComponent(sign(encodeSession(session), secret))}`;
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const portalUser = (): PortalSession => ({
  token: 'put_0123456789abcdefghijklmnopqrstuvwxyzABCDEF',
  person: { kind: 'portal-user', id: 'u1', name: 'Ada', organisationId: 'o1', organisationName: 'Harbour', role: 'admin', expiresAt: inAnHour() },
});
const worker = (): PortalSession => ({
  token: 'wkt_0123456789abcdefghijklmnopqrstuvwxyzABCDEF',
  person: { kind: 'worker', id: 'w1', name: 'Wanda', expiresAt: inAnHour() },
});

beforeAll(async () => {
  // Every service behind it is an address where nothing listens.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  origin = `http://localhost:${port}`;
  portal = await ServiceProcess.start({
    app: 'portal',
    port,
    env: {
      PORTAL_URL: origin,
      PORTAL_COOKIE_SECRET: COOKIE_SECRET,
      DIRECTORY_URL: nowhere,
      OFFERS_API_URL: nowhere,
      NOTIFICATION_SERVICE_URL: nowhere,
      WEBHOOK_DISPATCHER_URL: nowhere,
    },
  });
}, 60_000);

afterAll(async () => {
  await portal?.stop();
});

describe('the pages', () => {
  it('serves each page the HTML document with a strict content security policy, never cached', async () => {
    for (const path of ['/', '/sign-in', '/offers/0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b', '/worker', '/worker/sign-in']) {
      const page = await request(portal.url, 'GET', path);
      expect([path, page.status, page.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.text).toContain('<div id="root"></div>');
    }
    const script = /src="(\/assets\/[^"]+\.js)"/.exec((await request(portal.url, 'GET', '/')).text)?.[1] as string;
    const asset = await request(portal.url, 'GET', script);
    expect([asset.status, asset.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
  });

  it('answers anything else with a 404 problem', async () => {
    for (const path of ['/nope', '/offers/a/b', '/worker/offers', '/assets/missing.js']) {
      const answer = await request(portal.url, 'GET', path);
      expect([path, answer.status, problemOf(answer).slug]).toEqual([path, 404, 'not-found']);
    }
  });
});

describe('the session endpoints', () => {
  it('says nobody is signed in without a genuine cookie', async () => {
    for (const cookie of [undefined, 'portal_session=forged', sessionCookie(portalUser(), 'another-secret-0123456789abcdefghij')]) {
      const answer = await request(portal.url, 'GET', '/session', { headers: cookie ? { cookie } : {} });
      expect([answer.status, problemOf(answer).slug]).toEqual([401, 'unauthorized']);
    }
    const expired = { ...portalUser(), person: { ...portalUser().person, expiresAt: new Date(Date.now() - 1_000).toISOString() } };
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie: sessionCookie(expired) } })).status).toBe(401);
    const session = portalUser();
    const signedIn = await request(portal.url, 'GET', '/session', { headers: { cookie: sessionCookie(session) } });
    expect([signedIn.status, signedIn.json]).toEqual([200, session.person]);
  });

  it('checks what is sent before asking the directory, and refuses requests from another site', async () => {
    const headers = { origin };
    const bad = await request(portal.url, 'POST', '/session/links', { body: { email: 'not-an-address', audience: 'everyone' }, headers });
    expect([bad.status, Object.keys(problemOf(bad).errors ?? {}).sort()]).toEqual([400, ['audience', 'email']]);
    const badCode = await request(portal.url, 'POST', '/session', { body: { code: 'no spaces/or slashes' }, headers });
    expect([badCode.status, Object.keys(problemOf(badCode).errors ?? {})]).toEqual([400, ['code']]);
    for (const crossSite of [{ origin: 'https://elsewhere.example' }, {}, { 'sec-fetch-site': 'cross-site' }] as Array<Record<string, string>>) {
      const answer = await request(portal.url, 'POST', '/session/links', { body: { email: 'ada@example.com', audience: 'portal' }, headers: crossSite });
      expect([answer.status, problemOf(answer).slug]).toEqual([403, 'cross-site-request']);
    }
  });

  it('answers 503 with Retry-After while the directory cannot be reached', async () => {
    const answer = await request(portal.url, 'POST', '/session/links', { body: { email: 'ada@example.com', audience: 'portal' }, headers: { origin } });
    expect([answer.status, problemOf(answer).slug, answer.headers.get('retry-after')]).toEqual([503, 'directory-unavailable', '1']);
  });

  it('signs out even when the directory cannot be told, clearing the cookie', async () => {
    const answer = await request(portal.url, 'DELETE', '/session', { headers: { origin } });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('set-cookie')).toMatch(/^portal_session=;.*HttpOnly; SameSite=Strict/);
  });
});

describe('forwarding to the services', () => {
  it('needs a genuine session', async () => {
    for (const cookie of [undefined, 'portal_session=forged', sessionCookie(portalUser(), 'another-secret-0123456789abcdefghij')]) {
      const answer = await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: cookie ? { cookie } : {} });
      expect([answer.status, problemOf(answer).slug]).toEqual([401, 'unauthorized']);
    }
  });

  it('reaches only the session’s own area of each service', async () => {
    const asWorker = { cookie: sessionCookie(worker()) };
    const asUser = { cookie: sessionCookie(portalUser()) };
    for (const [headers, path] of [
      [asWorker, '/api/offers/portal/offers'],
      [asUser, '/api/offers/worker/offers'],
      [asUser, '/api/webhooks/admin/deliveries'],
      [asUser, '/api/directory/metrics'],
      [asUser, '/api/offers/portal/../admin'],
      [asUser, '/api/offers/portal/%2e%2e/admin'],
      [asUser, '/api/offers/portal//offers'],
    ] as const) {
      const answer = await request(portal.url, 'GET', path, { headers });
      expect([path, answer.status, problemOf(answer).slug]).toEqual([path, 404, 'not-found']);
    }
  });

  it('refuses a change from another site before forwarding anything', async () => {
    const answer = await request(portal.url, 'PUT', '/api/offers/worker/offers/x/response', {
      body: { response: 'applied' },
      headers: { cookie: sessionCookie(worker()), origin: 'https://elsewhere.example' },
    });
    expect([answer.status, problemOf(answer).slug]).toEqual([403, 'cross-site-request']);
  });

  it('answers 503 with Retry-After while a service is down', async () => {
    const answer = await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: { cookie: sessionCookie(portalUser()) } });
    expect([answer.status, problemOf(answer).slug, answer.headers.get('retry-after')]).toEqual([503, 'service-unavailable', '1']);
  });
});
