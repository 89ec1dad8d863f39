import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus, type HttpResult, request, seedOrganisation } from '@availability/platform-client';
import { eventually, freePort, ServiceProcess, SmtpSink, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * The portal's sessions against the real contact-directory and notification-service: a person signs
 * in by the e-mailed link, the cookie holds only the session's random id (the token stays in the
 * portal), and signing out ends the session for every copy of the cookie, not just the browser's.
 */
const EMAIL = 'ada@harbour-sessions.example';
let smtp: SmtpSink;
let platform: TestPlatform;
let portal: ServiceProcess;
let origin: string;

beforeAll(async () => {
  smtp = await SmtpSink.start();
  const port = await freePort();
  origin = `http://localhost:${port}`;
  platform = await startTestPlatform(['contact-directory', 'notification-service'], { SMTP_URL: smtp.url, PORTAL_URL: origin });
  await seedOrganisation(platform.admin, { name: 'Harbour Staffing', kind: 'agency', workers: 0, userEmail: EMAIL });
  // Only the directory is needed behind it: the other services are addresses where nothing listens.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  portal = await ServiceProcess.start({
    app: 'portal',
    port,
    env: {
      ...platform.env,
      PORTAL_URL: origin,
      DIRECTORY_URL: platform.url('contact-directory'),
      OFFERS_API_URL: nowhere,
      NOTIFICATION_SERVICE_URL: nowhere,
      WEBHOOK_DISPATCHER_URL: nowhere,
    },
  });
}, 120_000);

afterAll(async () => {
  await portal?.stop();
  await platform?.stop();
  await smtp?.close();
});

/** Signs in as a person does: a link asked for, the code from the e-mail, `POST /session`. The Set-Cookie it answers with. */
async function signIn(): Promise<string> {
  const before = smtp.to(EMAIL).length;
  expectStatus(await request(portal.url, 'POST', '/session/links', { body: { email: EMAIL, audience: 'portal' }, headers: { origin } }), 202);
  const mail = await eventually(() => smtp.to(EMAIL)[before], 15_000, 'the sign-in e-mail');
  const code = /\/sign-in#code=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  const signedIn = expectStatus(await request(portal.url, 'POST', '/session', { body: { code }, headers: { origin } }), 201);
  const [setCookie, ...more] = signedIn.headers.getSetCookie();
  expect(more).toEqual([]);
  return setCookie;
}

const slugOf = (result: HttpResult) => (result.json as { type?: string } | undefined)?.type?.split('/').pop();

describe('the session cookie', () => {
  it('is a __Host- cookie (Secure, Path=/, no Domain) holding a random id, not the token', async () => {
    const setCookie = await signIn();
    const [pair, ...attributes] = setCookie.split(/;\s*/);
    const name = pair.slice(0, pair.indexOf('='));
    const value = decodeURIComponent(pair.slice(name.length + 1));
    expect(name).toBe('__Host-portal_session');
    expect(attributes.map((attribute) => attribute.split('=')[0].toLowerCase()).sort()).toEqual(['expires', 'httponly', 'path', 'samesite', 'secure']);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict']));

    // 32 random bytes and the portal's signature of them: no token, and nothing it could be read from.
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9+/]{43}$/);
    const id = value.slice(0, value.indexOf('.'));
    for (const text of [value, Buffer.from(id, 'base64url').toString('latin1')]) expect(text).not.toMatch(/put_|wkt_/);
    const asBearer = await request(platform.url('contact-directory'), 'GET', '/portal/company-profile', { headers: { authorization: `Bearer ${id}` } });
    expect(asBearer.status).toBe(401);

    const cookie = pair;
    const signedIn = await request(portal.url, 'GET', '/session', { headers: { cookie } });
    expect([signedIn.status, (signedIn.json as { name: string }).name]).toEqual([200, 'Harbour Staffing sender']);
  });

  it('is signed out everywhere at sign-out: a copy of it replayed is signed out at /session and refused by /api', async () => {
    const cookie = (await signIn()).split(';')[0];
    const kept = { cookie };
    expect((await request(portal.url, 'GET', '/api/directory/portal/company-profile', { headers: kept })).status).toBe(200);

    const signedOut = await request(portal.url, 'DELETE', '/session', { headers: { cookie, origin } });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.getSetCookie()).toEqual([expect.stringMatching(/^__Host-portal_session=;.*Path=\//)]);

    const replayed = await request(portal.url, 'GET', '/session', { headers: kept });
    expect([replayed.status, slugOf(replayed)]).toEqual([401, 'unauthorized']);
    const proxied = await request(portal.url, 'GET', '/api/directory/portal/company-profile', { headers: kept });
    expect([proxied.status, slugOf(proxied)]).toEqual([401, 'unauthorized']);
    // Signing out again with the old copy changes nothing and still succeeds.
    expect((await request(portal.url, 'DELETE', '/session', { headers: { cookie, origin } })).status).toBe(204);
  });
});
