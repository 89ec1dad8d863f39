import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from 'pg';
import { request } from '@availability/platform-client';
import { eventually, freePort, queryDatabase, ServiceProcess, SmtpSink, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * Sign-in by e-mailed link against the real contact-directory and notification-service, with a real
 * SMTP server on loopback: the e-mail and its links, codes that work once, sessions that work on
 * portal and worker endpoints until signed out or expired, the same answer for unknown addresses (not
 * waiting for the e-mail), the limits, and an address's e-mails paced rather than refused. A second
 * contact-directory on the same database and bus has short session lifetimes, so expiry is seen
 * without waiting 12 hours.
 */
const PORTAL_URL = 'https://portal.test';
const PER_ADDRESS = 3;
const SHORT_SESSION_SECONDS = 2;
const SHORT_PER_CLIENT = 4;
/** Past the address's prompt e-mails of the hour, one e-mail every this many seconds. */
const SLOW_SECONDS = 2;

let platform: TestPlatform;
let smtp: SmtpSink;
/** A contact-directory with short session lifetimes, a credential cache of 0.5 s, and a client limit of its own. */
let short: ServiceProcess;
let directory: string;
const run = randomBytes(3).toString('hex');
const sam = `sam.${run}@acme.test`;
const ann = `ann.${run}@example.test`;
/** A user of its own for the enumeration check, so its e-mails do not count against the others' limit. */
const kim = `kim.${run}@acme.test`;
/** A user whose sign-in is asked for while the mail service is held. */
const hal = `hal.${run}@acme.test`;
/** A user whose sign-in e-mail notification-service takes only after the hand-off timed out. */
const ivy = `ivy.${run}@acme.test`;
/** A user whose address strangers ask links for, many times. */
const lee = `lee.${run}@acme.test`;
let acme: { id: string };
let northside: { id: string };
let annWorker: { id: string };

/** Links asked of the short-lived instance so far: its client limit counts them all. */
let linksAskedOfShort = 0;
const post = (base: string, path: string, body: unknown) => {
  if (base === short?.url && path === '/sign-in/links') linksAskedOfShort += 1;
  return request<Record<string, unknown>>(base, 'POST', path, { body });
};
const withToken = (base: string, method: string, path: string, token: string) => request<Record<string, unknown>>(base, method, path, { headers: { authorization: `Bearer ${token}` } });

/** The codes of the links in the last e-mail to `address`, by label. */
function linksIn(text: string, page: '/sign-in' | '/worker/sign-in'): Map<string, string> {
  const links = new Map<string, string>();
  const pattern = new RegExp(`^(.+):\\n${PORTAL_URL.replace(/\./g, '\\.')}${page}#code=([A-Za-z0-9_-]{43})$`, 'gm');
  for (const match of text.matchAll(pattern)) links.set(match[1], match[2]);
  return links;
}

/** Links asked for `email` by the client `client` (named in X-Forwarded-For, which the directory here believes). */
const askFrom = (client: string, email: string, audience: 'portal' | 'worker' = 'portal') =>
  request<Record<string, unknown>>(directory, 'POST', '/sign-in/links', { body: { email, audience }, headers: { 'x-forwarded-for': client } });

/** Headers that differ from one answer to the next whatever was asked. */
const PER_ANSWER_HEADERS = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

/** What a client can see of an answer: status, body and headers (less those of every answer's own). */
function seen(answer: { status: number; text: string; headers: Headers }) {
  return { status: answer.status, body: answer.text, headers: [...answer.headers].filter(([name]) => !PER_ANSWER_HEADERS.has(name)) };
}

/** Portal sign-in codes stored for the users with this address. */
async function codesOf(email: string): Promise<number> {
  const rows = await queryDatabase<{ n: number }>(
    platform.database.url,
    `SELECT count(*)::int AS n FROM directory.sign_in_code c JOIN directory.portal_user u ON u.id = c.user_id WHERE lower(u.email) = lower($1)`,
    [email],
  );
  return rows[0].n;
}

/** The session a link of the newest e-mail to `address` since `since` signs in to, once such an e-mail has come and its link works. */
/** Whether a statement waits for the lock on the mail pace table (the mailer's, the test holding it). */
async function mailerWaitsOnPace(): Promise<boolean> {
  const rows = await queryDatabase<{ n: number }>(
    platform.database.url,
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'sign_in_mail_pace' AND NOT l.granted`,
  );
  return rows[0].n > 0;
}

async function workingLink(address: string, since: number, page: '/sign-in' | '/worker/sign-in' = '/sign-in'): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const mail = smtp.to(address).filter((received) => received.receivedAt >= since).at(-1);
      const code = mail && [...linksIn(mail.text, page).values()][0];
      if (!code) return undefined;
      const session = await post(directory, '/sign-in/sessions', { code });
      return session.status === 201 ? session.json : undefined;
    },
    30_000,
    `a working sign-in link to ${address}`,
  );
}

async function mailTo(address: string, count: number): Promise<string> {
  await eventually(() => smtp.to(address).length >= count, 15_000, `e-mail ${count} to ${address}`);
  return smtp.to(address)[count - 1].text;
}

beforeAll(async () => {
  smtp = await SmtpSink.start();
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    SMTP_URL: smtp.url,
    EMAIL_BACKOFF_MS: '100',
    PORTAL_URL,
    SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR: String(PER_ADDRESS),
    SIGN_IN_LINKS_PER_CLIENT_PER_HOUR: '1000',
    SIGN_IN_LINKS_SLOW_INTERVAL_SECONDS: String(SLOW_SECONDS),
    // The test plays several clients at once: it names each in X-Forwarded-For, as the portal does.
    TRUST_PROXY: '127.0.0.1',
  });
  directory = platform.url('contact-directory');
  short = await ServiceProcess.start({
    app: 'contact-directory',
    port: await freePort(),
    env: {
      ...platform.env,
      PORTAL_SESSION_TTL_SECONDS: String(SHORT_SESSION_SECONDS),
      WORKER_SESSION_TTL_SECONDS: String(SHORT_SESSION_SECONDS),
      CREDENTIAL_CACHE_TTL_MS: '500',
      SIGN_IN_LINKS_PER_CLIENT_PER_HOUR: String(SHORT_PER_CLIENT),
      TRUST_PROXY: '',
      // Counters of its own, so its client limit is not shared with the first instance's requests.
      QUEUE_PREFIX: `${platform.env.QUEUE_PREFIX}_short`,
    },
  });
  acme = await platform.admin.createOrganisation(`Acme ${run}`, 'hirer');
  northside = await platform.admin.createOrganisation(`Northside ${run}`, 'agency');
  // One person, a user of two organisations, the address spelt differently in each.
  await platform.admin.createUser(acme.id, { email: sam, name: 'Sam Example', role: 'admin' });
  await platform.admin.createUser(northside.id, { email: sam.toUpperCase(), name: 'Sam Example' });
  await platform.admin.createUser(acme.id, { email: kim, name: 'Kim Example' });
  await platform.admin.createUser(acme.id, { email: hal, name: 'Hal Example' });
  await platform.admin.createUser(acme.id, { email: ivy, name: 'Ivy Example' });
  await platform.admin.createUser(acme.id, { email: lee, name: 'Lee Example' });
  [annWorker] = await platform.admin.createWorkers(acme.id, [{ name: 'Ann Example', email: ann }]);
  await platform.admin.linkWorker(northside.id, annWorker.id);
}, 90_000);

afterAll(async () => {
  await short?.stop();
  await platform?.stop();
  await smtp?.close();
});

describe('portal users', () => {
  let acmeCode: string;
  let northsideCode: string;

  it('one e-mail lists a link per organisation where the address is a user, the code in the fragment', async () => {
    const answer = await post(directory, '/sign-in/links', { email: sam, audience: 'portal' });
    expect(answer.status).toBe(202);
    const links = linksIn(await mailTo(sam, 1), '/sign-in');
    expect([...links.keys()].sort()).toEqual([`Acme ${run}`, `Northside ${run}`]);
    acmeCode = links.get(`Acme ${run}`) as string;
    northsideCode = links.get(`Northside ${run}`) as string;
    expect(smtp.to(sam)[0].subject).toBe('Your sign-in link for the Availability Platform portal');
    const stored = await queryDatabase<{ n: number }>(platform.database.url, `SELECT count(*)::int AS n FROM directory.sign_in_code WHERE code_hash = encode(sha256($1::bytea), 'hex')`, [acmeCode]);
    expect(stored[0].n).toBe(1);
    const clear = await queryDatabase(platform.database.url, `SELECT 1 FROM directory.sign_in_code WHERE code_hash = $1`, [acmeCode.padEnd(64, 'x')]);
    expect(clear).toHaveLength(0);
  });

  it('a code signs in once and only once, as the user of its organisation, with a 12-hour token', async () => {
    const before = Date.now();
    const session = await post(directory, '/sign-in/sessions', { code: acmeCode });
    expect(session.status).toBe(201);
    expect(session.json).toMatchObject({ kind: 'portal-user', user: { organisationId: acme.id, organisationName: `Acme ${run}`, role: 'admin', name: 'Sam Example', email: sam } });
    const token = session.json.token as string;
    expect(token).toMatch(/^put_[A-Za-z0-9_-]{43}$/);
    const expiresAt = Date.parse(session.json.expiresAt as string);
    expect(expiresAt - before).toBeGreaterThan(12 * 3600_000 - 60_000);
    expect(expiresAt - before).toBeLessThan(12 * 3600_000 + 60_000);

    const profile = await withToken(directory, 'GET', '/portal/company-profile', token);
    expect(profile.status).toBe(200);
    expect(profile.json.organisationId).toBe(acme.id);

    const again = await post(directory, '/sign-in/sessions', { code: acmeCode });
    expect(again.status).toBe(400);
    expect(again.json.type).toBe('https://availability.example/problems/sign-in-code-invalid');
  });

  it('two redemptions of one code at once: exactly one session', async () => {
    const answers = await Promise.all([directory, short.url, directory].map((base) => post(base, '/sign-in/sessions', { code: northsideCode })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400, 400]);
    expect(answers.find((answer) => answer.status === 201)?.json).toMatchObject({ user: { organisationId: northside.id, role: 'member' } });
  });

  it('an unknown or malformed code is refused the same way', async () => {
    for (const code of [randomBytes(32).toString('base64url'), 'not-a-code', 'x'.repeat(100)]) {
      const answer = await post(directory, '/sign-in/sessions', { code });
      expect([answer.status, answer.json.type]).toEqual([400, 'https://availability.example/problems/sign-in-code-invalid']);
    }
  });

  it('signing out revokes the token at once, here and for every service caching it', async () => {
    await post(directory, '/sign-in/links', { email: sam, audience: 'portal' });
    const code = linksIn(await mailTo(sam, 2), '/sign-in').get(`Acme ${run}`) as string;
    const token = (await post(directory, '/sign-in/sessions', { code })).json.token as string;
    // Both instances have the verdict cached before the sign-out.
    expect((await withToken(directory, 'GET', '/portal/company-profile', token)).status).toBe(200);
    expect((await withToken(short.url, 'GET', '/portal/company-profile', token)).status).toBe(200);
    expect((await withToken(directory, 'DELETE', '/sign-in/session', token)).status).toBe(204);
    expect((await withToken(directory, 'GET', '/portal/company-profile', token)).status).toBe(401);
    expect((await withToken(short.url, 'GET', '/portal/company-profile', token)).status).toBe(401);
    expect((await withToken(directory, 'DELETE', '/sign-in/session', token)).status).toBe(401);
    const revoked = await queryDatabase<{ revoked: boolean }>(platform.database.url, `SELECT revoked_at IS NOT NULL AS revoked FROM directory.portal_user_token WHERE token_hash = encode(sha256($1::bytea), 'hex')`, [token]);
    expect(revoked).toEqual([{ revoked: true }]);
  });

  it('sign-out needs a live portal-user or worker token', async () => {
    expect((await request(directory, 'DELETE', '/sign-in/session')).status).toBe(401);
    expect((await withToken(directory, 'DELETE', '/sign-in/session', 'put_nonsense')).status).toBe(401);
    const apiKey = (await platform.admin.createApiKey(acme.id, 'not for sign-out')).key;
    expect((await withToken(directory, 'DELETE', '/sign-in/session', apiKey)).status).toBe(401);
  });
});

describe('workers', () => {
  it('signs in from the worker link, works on worker endpoints (not portal ones) for 30 days, until signed out', async () => {
    expect((await post(directory, '/sign-in/links', { email: ann, audience: 'worker' })).status).toBe(202);
    const text = await mailTo(ann, 1);
    expect(smtp.to(ann)[0].subject).toBe('Your sign-in link for the Availability Platform');
    const links = linksIn(text, '/worker/sign-in');
    expect([...links.keys()]).toEqual([`Ann Example (Acme ${run}, Northside ${run})`]);
    const before = Date.now();
    const session = await post(directory, '/sign-in/sessions', { code: [...links.values()][0] });
    expect(session.status).toBe(201);
    expect(session.json).toMatchObject({
      kind: 'worker',
      worker: { id: annWorker.id, name: 'Ann Example', email: ann, organisations: expect.arrayContaining([{ organisationId: acme.id, organisationName: `Acme ${run}` }]) },
    });
    expect(Date.parse(session.json.expiresAt as string) - before).toBeGreaterThan(30 * 24 * 3600_000 - 60_000);
    const token = session.json.token as string;
    expect(token).toMatch(/^wkt_/);
    expect((await withToken(directory, 'GET', '/worker/contacts', token)).status).toBe(200);
    expect((await withToken(directory, 'GET', '/portal/company-profile', token)).status).toBe(401);
    expect((await withToken(directory, 'DELETE', '/sign-in/session', token)).status).toBe(204);
    expect((await withToken(directory, 'GET', '/worker/contacts', token)).status).toBe(401);
  });

  it('a portal sign-in for a worker-only address, and a worker sign-in for a user-only address, send nothing', async () => {
    const before = smtp.mails.length;
    expect((await post(directory, '/sign-in/links', { email: ann, audience: 'portal' })).status).toBe(202);
    expect((await post(directory, '/sign-in/links', { email: sam, audience: 'worker' })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(smtp.mails.length).toBe(before);
  });
});

describe('no account enumeration', () => {
  it('an unknown address gets the same answer and no e-mail', async () => {
    const nobody = `nobody.${run}@example.test`;
    const known = await post(directory, '/sign-in/links', { email: kim, audience: 'portal' });
    const unknown = await post(directory, '/sign-in/links', { email: nobody, audience: 'portal' });
    expect(unknown.status).toBe(202);
    expect(unknown.text).toBe(known.text);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(smtp.to(nobody)).toHaveLength(0);
    expect(smtp.to(kim)).toHaveLength(1);
  });
});

describe('the answer does not wait for the work', () => {
  it('with the e-mail work held, a known address is answered as an unknown one, and its codes are written only after; released, its link comes', async () => {
    const started = Date.now();
    const hold = new Client({ connectionString: platform.database.url });
    await hold.connect();
    let known: Awaited<ReturnType<typeof askFrom>>;
    let unknown: Awaited<ReturnType<typeof askFrom>>;
    let codesWhileHeld: number;
    try {
      // The mailer's first write for any address waits on this lock: the work begins but cannot store a code.
      await hold.query('BEGIN');
      await hold.query('LOCK TABLE directory.sign_in_mail_pace IN EXCLUSIVE MODE');
      known = await askFrom('198.51.100.201', hal);
      unknown = await askFrom('198.51.100.202', `nobody.held.${run}@example.test`);
      await eventually(() => mailerWaitsOnPace(), 30_000, 'the mailer waiting on the held lock');
      codesWhileHeld = await codesOf(hal);
    } finally {
      await hold.query('ROLLBACK').catch(() => undefined);
      await hold.end();
    }
    expect(seen(known)).toEqual(seen(unknown));
    expect(known.status).toBe(202);
    expect(codesWhileHeld).toBe(0);
    expect(await workingLink(hal, started)).toMatchObject({ kind: 'portal-user', user: { email: hal } });
  });

  it('an e-mail notification-service takes after the hand-off timed out carries links that work', async () => {
    const notifications = platform.services['notification-service'];
    const directoryLog = platform.services['contact-directory'];
    const logged = directoryLog.logs().length;
    notifications.pause();
    try {
      expect((await askFrom('198.51.100.203', ivy)).status).toBe(202);
      // The directory handed the e-mail over and gave up waiting for the answer (SIGN_IN_MAIL_TIMEOUT_MS);
      // released, notification-service takes what it was handed meanwhile.
      await eventually(() => /sign-in\.requested failed/.test(directoryLog.logs().slice(logged)), 60_000, 'the hand-off timed out');
    } finally {
      notifications.resume();
    }
    const first = await eventually(() => smtp.to(ivy)[0], 30_000, 'the first e-mail to ivy');
    const code = [...linksIn(first.text, '/sign-in').values()][0];
    const session = await post(directory, '/sign-in/sessions', { code });
    expect([session.status, session.json.type]).toEqual([201, undefined]);
  });
});

describe('expiry', () => {
  it('a code works for SIGN_IN_CODE_TTL_SECONDS from when it is sent, and is refused past it', async () => {
    await post(directory, '/sign-in/links', { email: ann, audience: 'worker' });
    const code = [...linksIn(await mailTo(ann, 2), '/worker/sign-in').values()][0];
    expect(smtp.to(ann)[1].text).toContain('within 15 minutes.');
    const hash = `encode(sha256($1::bytea), 'hex')`;
    const [stored] = await queryDatabase<{ seconds: number }>(platform.database.url, `SELECT extract(epoch FROM expires_at - created_at)::int AS seconds FROM directory.sign_in_code WHERE code_hash = ${hash}`, [code]);
    expect(stored.seconds).toBe(900);
    // Its lifetime over (by the database's clock, the one redemption goes by).
    await queryDatabase(platform.database.url, `UPDATE directory.sign_in_code SET expires_at = now() - interval '1 second' WHERE code_hash = ${hash}`, [code]);
    const answer = await post(directory, '/sign-in/sessions', { code });
    expect([answer.status, answer.json.type]).toEqual([400, 'https://availability.example/problems/sign-in-code-invalid']);
  });

  it('a session token past its lifetime is refused, also after it was in use', async () => {
    await post(short.url, '/sign-in/links', { email: sam, audience: 'portal' });
    const code = linksIn(await mailTo(sam, 3), '/sign-in').get(`Acme ${run}`) as string;
    const session = await post(short.url, '/sign-in/sessions', { code });
    expect(session.status).toBe(201);
    const token = session.json.token as string;
    expect((await withToken(short.url, 'GET', '/portal/company-profile', token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(session.json.expiresAt as string) + 1_000 - Date.now())));
    // The first instance never saw the token; the short one's cache (0.5 s) has let it go.
    expect((await withToken(directory, 'GET', '/portal/company-profile', token)).status).toBe(401);
    expect((await withToken(short.url, 'GET', '/portal/company-profile', token)).status).toBe(401);
  });
});

describe('limits', () => {
  it('a client address may ask for a limited number of links an hour, whatever the e-mail addresses', async () => {
    const earlier = linksAskedOfShort;
    expect(earlier).toBeLessThan(SHORT_PER_CLIENT);
    const statuses: number[] = [];
    for (let i = earlier; i <= SHORT_PER_CLIENT; i += 1) statuses.push((await post(short.url, '/sign-in/links', { email: `c${i}.${run}@example.test`, audience: 'portal' })).status);
    expect(statuses).toEqual([...Array(SHORT_PER_CLIENT - earlier).fill(202), 429]);
  });

  it('counts a client by the address a trusted proxy (the portal) names, and ignores the header from anyone else', async () => {
    const asked = (base: string, client: string) =>
      request(base, 'POST', '/sign-in/links', { body: { email: `proxy.${run}@example.test`, audience: 'portal' }, headers: { 'x-forwarded-for': client } });
    // The instance trusting no proxy has used its budget for this test's own address: a made-up header does not reset it.
    expect((await asked(short.url, '203.0.113.77')).status).toBe(429);
    linksAskedOfShort += 1;
    const behindPortal = await ServiceProcess.start({
      app: 'contact-directory',
      port: await freePort(),
      env: { ...platform.env, TRUST_PROXY: '127.0.0.1', SIGN_IN_LINKS_PER_CLIENT_PER_HOUR: '1', QUEUE_PREFIX: `${platform.env.QUEUE_PREFIX}_proxied` },
    });
    try {
      expect([(await asked(behindPortal.url, '203.0.113.1')).status, (await asked(behindPortal.url, '203.0.113.1')).status]).toEqual([202, 429]);
      expect((await asked(behindPortal.url, '203.0.113.2')).status).toBe(202);
    } finally {
      await behindPortal.stop();
    }
  });

  it('nobody can lock an address out: after strangers asked for it many times, its owner still gets a working link, and the mailbox only a few e-mails', async () => {
    const flooded = Date.now();
    const statuses: number[] = [];
    for (let i = 1; i <= 4 * PER_ADDRESS; i += 1) statuses.push((await askFrom(`198.51.100.${i}`, lee)).status);
    expect(statuses).toEqual(Array(4 * PER_ADDRESS).fill(202));
    const asked = Date.now();
    expect((await askFrom('203.0.113.200', lee)).status).toBe(202);
    expect(await workingLink(lee, asked)).toMatchObject({ kind: 'portal-user', user: { email: lee } });
    // At once up to the hourly number, then one every SLOW_SECONDS at most, however often it is asked.
    expect(smtp.to(lee).length).toBeLessThanOrEqual(PER_ADDRESS + 1 + Math.ceil((Date.now() - flooded) / (SLOW_SECONDS * 1000)));
  });

  it('an accepted request is not lost: asked while the mail service is down, the directory killed after answering, the e-mail comes once both are back', async () => {
    const notifications = platform.services['notification-service'];
    const answering = platform.services['contact-directory'];
    const asked = Date.now();
    await notifications.stop();
    try {
      const answer = await askFrom('198.51.100.210', ann, 'worker');
      expect(answer.status).toBe(202);
      await answering.kill();
    } finally {
      await notifications.start();
      if (answering.exit) await answering.start();
    }
    expect(await workingLink(ann, asked, '/worker/sign-in')).toMatchObject({ kind: 'worker', worker: { email: ann } });
  });
});
