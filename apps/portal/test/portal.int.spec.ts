import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sign } from '@fastify/cookie';
import { type HttpResult, request } from '@availability/platform-client';
import { connectRedis, loadConfig, redisAt } from '@availability/service-core';
import { freePort, ServiceProcess } from '@availability/testing';
import { PortalConfig } from '../src/config/portal.config.js';
import { newSessionId, type PortalSession } from '../src/session/portal-session.js';
import { SessionStore } from '../src/session/session-store.js';

/**
 * The portal on its own, as a browser and an attacker meet it: the pages with their security
 * headers, the session endpoints' checks, and the forwarding refused without a live session, for
 * the wrong area, from another site, or answered 503 while a service or the session store is down.
 * Sessions are put in its store as sign-in does (SessionStore, in the suite's own Redis prefix).
 * (Signing in and out against the directory: portal-sessions.int.spec.ts; with every service behind
 * it: tools/e2e/test/portal-browser.spec.ts.)
 */
const COOKIE_SECRET = 'portal-int-cookie-secret-0123456789abcdef';
const REDIS_URL = 'redis://127.0.0.1:6379';
const QUEUE_PREFIX = `test_portal_${randomBytes(4).toString('hex')}`;
const redis = connectRedis(redisAt(REDIS_URL));
const store = new SessionStore(loadConfig(PortalConfig, { REDIS_URL, QUEUE_PREFIX }), () => new Date());
let portal: ServiceProcess;
let origin: string;

function problemOf(result: HttpResult): { slug: string; status: number; errors?: Record<string, string[]> } {
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = result.json as { type: string; status: number; errors?: Record<string, string[]> };
  expect(problem.status).toBe(result.status);
  return { ...problem, slug: problem.type.slice(problem.type.lastIndexOf('/') + 1) };
}

const cookieOf = (id: string, secret = COOKIE_SECRET, name = '__Host-portal_session') => `${name}=${encodeURIComponent(sign(id, secret))}`;
/** A session kept in the portal's store, as signing in keeps it: its cookie. */
const signedIn = async (session: PortalSession) => cookieOf(await store.create(session));

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const portalUser = (): PortalSession => ({
  token: `put_${randomBytes(32).toString('base64url')}`,
  person: { kind: 'portal-user', id: 'u1', name: 'Ada', organisationId: 'o1', organisationName: 'Harbour', role: 'admin', expiresAt: inAnHour() },
});
const worker = (): PortalSession => ({
  token: `wkt_${randomBytes(32).toString('base64url')}`,
  person: { kind: 'worker', id: 'w1', name: 'Wanda', expiresAt: inAnHour() },
});

/**
 * Cookies that sign nobody in: none, garbage, an id the portal never gave (signed with another
 * secret, or with its own), a live session's id unsigned or under the name without `__Host-`, and
 * the cookie as it once was: the session itself, token and all, signed with the portal's secret.
 */
async function cookiesOfNobody(): Promise<Array<string | undefined>> {
  const live = await store.create(portalUser());
  const asItWas = Buffer.from(JSON.stringify(portalUser()), 'utf8').toString('base64url');
  return [
    undefined,
    '__Host-portal_session=forged',
    cookieOf(newSessionId(), 'another-secret-0123456789abcdefghij'),
    cookieOf(newSessionId()),
    `__Host-portal_session=${live}`,
    cookieOf(live, COOKIE_SECRET, 'portal_session'),
    cookieOf(live, COOKIE_SECRET, '__host-portal_session'),
    cookieOf(asItWas),
    cookieOf(asItWas, COOKIE_SECRET, 'portal_session'),
  ];
}

function portalEnv(nowhere: string): Record<string, string> {
  return {
    PORTAL_URL: origin,
    PORTAL_COOKIE_SECRET: COOKIE_SECRET,
    REDIS_URL,
    QUEUE_PREFIX,
    DIRECTORY_URL: nowhere,
    OFFERS_API_URL: nowhere,
    NOTIFICATION_SERVICE_URL: nowhere,
    WEBHOOK_DISPATCHER_URL: nowhere,
  };
}

beforeAll(async () => {
  // Every service behind it is an address where nothing listens.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  origin = `http://localhost:${port}`;
  portal = await ServiceProcess.start({ app: 'portal', port, env: portalEnv(nowhere) });
}, 60_000);

afterAll(async () => {
  await portal?.stop();
  store.onModuleDestroy();
  const keys = await redis.keys(`${QUEUE_PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
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

  it('answers a browser asking for a page it does not have with the HTML document, as a 404, which shows “page not found”', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const path of ['/nope', '/offers/a/b', '/worker/offers', '/worker/nope/deeper']) {
      const page = await request(portal.url, 'GET', path, { headers: browser });
      expect([path, page.status, page.headers.get('content-type'), page.headers.get('cache-control')]).toEqual([path, 404, 'text/html; charset=utf-8', 'no-cache']);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
      expect(page.text).toContain('<div id="root"></div>');
    }
    // What is not a page stays a problem, even for a browser: a missing file, an unknown API.
    for (const path of ['/assets/missing.js', '/favicon.png', '/api/nope/x', '/session/nope']) {
      const answer = await request(portal.url, 'GET', path, { headers: browser });
      expect([path, answer.status, problemOf(answer).slug]).toEqual([path, 404, 'not-found']);
    }
  });

  it('answers anything else with a 404 problem', async () => {
    for (const path of ['/nope', '/offers/a/b', '/worker/offers', '/assets/missing.js']) {
      const answer = await request(portal.url, 'GET', path);
      expect([path, answer.status, problemOf(answer).slug]).toEqual([path, 404, 'not-found']);
    }
  });
});

describe('the session endpoints', () => {
  it('says nobody is signed in without a live session, and who is with one', async () => {
    for (const cookie of await cookiesOfNobody()) {
      const answer = await request(portal.url, 'GET', '/session', { headers: cookie ? { cookie } : {} });
      expect([cookie, answer.status, problemOf(answer).slug]).toEqual([cookie, 401, 'unauthorized']);
    }
    const session = portalUser();
    const answer = await request(portal.url, 'GET', '/session', { headers: { cookie: await signedIn(session) } });
    expect([answer.status, answer.json]).toEqual([200, session.person]);
  });

  it('keeps in Redis neither the cookie’s id nor the token, each for as long as its session lasts', async () => {
    const session = worker();
    const id = await store.create(session);
    const keys = await redis.keys(`${QUEUE_PREFIX}:portal-session:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).not.toContain(id);
      const record = (await redis.get(key)) ?? '';
      for (const text of [record, Buffer.from(record, 'base64url').toString('latin1')]) expect([key, text]).toEqual([key, expect.not.stringMatching(/wkt_|put_|Wanda|Ada/)]);
      const ttl = await redis.pttl(key);
      expect(ttl > 0 && ttl <= 3_600_000).toBe(true);
    }
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
    const cookie = await signedIn(portalUser());
    expect((await request(portal.url, 'DELETE', '/session', { headers: { cookie, origin: 'https://elsewhere.example' } })).status).toBe(403);
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie } })).status).toBe(200);
  });

  it('answers 503 with Retry-After while the directory cannot be reached', async () => {
    const answer = await request(portal.url, 'POST', '/session/links', { body: { email: 'ada@example.com', audience: 'portal' }, headers: { origin } });
    expect([answer.status, problemOf(answer).slug, answer.headers.get('retry-after')]).toEqual([503, 'directory-unavailable', '1']);
  });

  it('signs out even when the directory cannot be told: the session ends for every copy of the cookie, which is cleared', async () => {
    const cookie = await signedIn(portalUser());
    const answer = await request(portal.url, 'DELETE', '/session', { headers: { cookie, origin } });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('set-cookie')).toMatch(/^__Host-portal_session=;.*Path=\/;.*HttpOnly; Secure; SameSite=Strict/);
    expect((await request(portal.url, 'GET', '/session', { headers: { cookie } })).status).toBe(401);
    expect((await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: { cookie } })).status).toBe(401);
    expect((await request(portal.url, 'DELETE', '/session', { headers: { origin } })).status).toBe(204);
  });
});

describe('forwarding to the services', () => {
  it('needs a live session', async () => {
    for (const cookie of await cookiesOfNobody()) {
      const answer = await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: cookie ? { cookie } : {} });
      expect([cookie, answer.status, problemOf(answer).slug]).toEqual([cookie, 401, 'unauthorized']);
    }
  });

  it('reaches only the session’s own area of each service', async () => {
    const asWorker = { cookie: await signedIn(worker()) };
    const asUser = { cookie: await signedIn(portalUser()) };
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
      headers: { cookie: await signedIn(worker()), origin: 'https://elsewhere.example' },
    });
    expect([answer.status, problemOf(answer).slug]).toEqual([403, 'cross-site-request']);
  });

  it('answers 503 with Retry-After while a service is down', async () => {
    const answer = await request(portal.url, 'GET', '/api/offers/portal/offers', { headers: { cookie: await signedIn(portalUser()) } });
    expect([answer.status, problemOf(answer).slug, answer.headers.get('retry-after')]).toEqual([503, 'service-unavailable', '1']);
  });
});

describe('without its session store', () => {
  it('answers 503 with Retry-After for a session it cannot look up, and is not ready', async () => {
    const port = await freePort();
    const env = { ...portalEnv(`http://127.0.0.1:${await freePort()}`), REDIS_URL: `redis://127.0.0.1:${await freePort()}` };
    const storeless = await ServiceProcess.start({ app: 'portal', port, env: { ...env, PORTAL_URL: `http://localhost:${port}` } });
    try {
      const cookie = cookieOf(newSessionId());
      for (const path of ['/session', '/api/offers/portal/offers']) {
        const answer = await request(storeless.url, 'GET', path, { headers: { cookie } });
        expect([path, answer.status, problemOf(answer).slug, answer.headers.get('retry-after')]).toEqual([path, 503, 'sessions-unavailable', '1']);
      }
      // Without a cookie there is nothing to look up.
      expect((await request(storeless.url, 'GET', '/session')).status).toBe(401);
      const health = await request(storeless.url, 'GET', '/health');
      expect([health.status, (health.json as { detail: string }).detail]).toEqual([503, expect.stringContaining('redis')]);
    } finally {
      await storeless.stop();
    }
  });
});
