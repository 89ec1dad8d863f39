import { DirectoryAdminClient, expectStatus, issuePortalUserToken, offerBody, PortalClient, request, WorkerContactsClient } from '@availability/platform-client';
import { eventually, freePort, type ServiceProcess, SmtpSink, startTestPlatform, startTestPortal, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';

/** The services startTestPlatform runs; contact-directory first (the others ask it over NATS from start-up). */
export const PLATFORM_APPS = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'];
/** Every service with HTTP endpoints: the platform's, and the portal in front of them. */
export const FUZZED_APPS = [...PLATFORM_APPS, 'portal'];
/** The services the portal forwards `/api/<name>/…` to, by that name. */
export const PORTAL_UPSTREAMS: Record<string, string> = {
  directory: 'contact-directory',
  offers: 'offers-api',
  notifications: 'notification-service',
  webhooks: 'webhook-dispatcher',
};

export const DISPATCHER_ADMIN_TOKEN = 'fuzz-dispatcher-admin-token-0123456789abcdef';
export const INTEGRATOR_SECRET = 'fuzz-integrator-secret-0123456789';
export const PORTAL_COOKIE_SECRET = 'fuzz-portal-cookie-secret-0123456789';

/**
 * Settings that keep the platform quiet between requests, so a changed database can be blamed on the
 * request just answered: retries and e-mail digests are due long after the suite has finished, and the
 * company-profile check gives up quickly on addresses that do not answer. The documents served equal
 * the committed ones (no development routes).
 */
const QUIET_ENV: Record<string, string> = {
  DISPATCHER_ADMIN_TOKEN,
  INTEGRATOR_SECRET,
  DEV_ENDPOINTS: 'false',
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  // The fuzzer's Web Push subscriptions name a push service that never resolves (operations.ts).
  WEB_PUSH_SERVICE_HOSTS: 'push.example.invalid',
  WEBHOOK_BACKOFF_BASE_MS: '3600000',
  WEBHOOK_TEST_TIMEOUT_MS: '1000',
  SUGGESTIONS_TIMEOUT_MS: '500',
  EMAIL_DIGEST_WINDOW_MS: '3600000',
  PUSH_BACKOFF_MS: '3600000',
  EMAIL_BACKOFF_MS: '3600000',
  // Every request comes from one address (directly or through the portal): without this, sign-in
  // links would be a 429 after the first 30 and their handler unexplored. Each address's e-mails are still paced.
  SIGN_IN_LINKS_PER_CLIENT_PER_HOUR: '100000',
};

/** An organisation as the fuzzer uses it: credentials that pass authentication, and ids of its things. */
export interface Tenant {
  organisationId: string;
  apiKey: string;
  adminUser: { id: string; token: string };
  memberUser: { id: string; token: string };
  workers: Array<{ id: string; token: string }>;
  offerIds: string[];
}

export type PortalPersonKind = 'portal-user' | 'worker';

/**
 * Portal session cookies (`__Host-portal_session` values as the portal set them: a session id and its
 * signature), each from a sign-in by e-mailed link through the portal, as a person signs in.
 */
export interface PortalSessions {
  /** The portal's origin: a request that changes something must carry it as `Origin`. */
  origin: string;
  /** The secret the portal signs session ids with; the fuzzer uses it only to forge hostile cookies. */
  cookieSecret: string;
  homeAdmin: string;
  homeMember: string;
  /** The home organisation's first worker (the one with answers and a device). */
  worker: string;
  /** The other organisation's admin: must never reach the home organisation's offers or deliveries. */
  otherAdmin: string;
  /** A home member's session that was signed out (its session ended, its token revoked). */
  revoked: string;
  /** A live portal-user token (the home admin's, issued by an operator): a cookie carrying it, as cookies once did, must sign nobody in. */
  liveToken: string;
  /** Sessions DELETE /session may sign out without locking the fuzzer out. */
  spare: string[];
  /** The kind of person each live cookie signs in (spare ones included until signed out). */
  kinds: Map<string, PortalPersonKind>;
}

/** The seeded platform every generated request is aimed at. */
export interface FuzzWorld {
  platform: TestPlatform;
  urls: Record<string, string>;
  directoryAdminToken: string;
  dispatcherAdminToken: string;
  integratorSecret: string;
  /** The organisation whose credentials most requests carry. */
  home: Tenant;
  /** Another organisation: its credentials and ids must never reach the home organisation's data. */
  other: Tenant;
  /** Credentials that were valid once. */
  revoked: { apiKey: string; workerToken: string; userToken: string };
  /** Ids the DELETE endpoints may revoke without locking the fuzzer out; tokens sign-out may revoke. */
  spare: { apiKeyIds: string[]; workerTokenIds: string[]; userTokenIds: string[]; sessionTokens: string[] };
  deviceIds: string[];
  deliveryIds: string[];
  portal: PortalSessions;
  stop(): Promise<void>;
}

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const mail = await SmtpSink.start();
  const portalPort = await freePort();
  // Sign-in links in e-mails point at the portal, as they do in production.
  const portalUrl = `http://localhost:${portalPort}`;
  let platform: TestPlatform;
  try {
    platform = await startTestPlatform(PLATFORM_APPS, { ...QUIET_ENV, SMTP_URL: mail.url, PORTAL_URL: portalUrl });
  } catch (error) {
    await mail.close();
    throw error;
  }
  let portal: ServiceProcess | undefined;
  const stop = async () => {
    await portal?.stop();
    await platform.stop();
    await mail.close();
  };
  try {
    portal = await startTestPortal(platform, portalPort, { PORTAL_COOKIE_SECRET });
    const seeded = await seedWorld(platform);
    const urls = { ...seeded.urls, portal: portal.url };
    return { ...seeded, urls, portal: await seedPortalSessions(portal.url, new URL(portalUrl).origin, mail, seeded), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function seedWorld(platform: TestPlatform): Promise<Omit<FuzzWorld, 'stop' | 'portal'>> {
  const urls = Object.fromEntries(PLATFORM_APPS.map((app) => [app, platform.url(app)]));
  const directory = urls['contact-directory'];
  const admin = new DirectoryAdminClient(directory, TEST_ADMIN_TOKEN);
  const adminCall = async <T>(method: string, path: string, status: number, body?: unknown) =>
    expectStatus(await request<T>(directory, method, path, { body, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }), status).json;

  const tenant = async (name: string, kind: 'hirer' | 'agency'): Promise<Tenant> => {
    const organisation = await admin.createOrganisation(name, kind);
    const slug = organisation.id.slice(0, 8);
    const adminUser = await admin.createUser(organisation.id, { email: `admin@${slug}.example`, name: `${name} admin`, role: 'admin' });
    const memberUser = await admin.createUser(organisation.id, { email: `member@${slug}.example`, name: `${name} member`, role: 'member' });
    // Addresses so workers can sign in to the portal by e-mailed link.
    const workers = await admin.createWorkers(organisation.id, [1, 2, 3].map((i) => ({ name: `${name} worker ${i}`, email: `worker${i}@${slug}.example` })));
    return {
      organisationId: organisation.id,
      apiKey: organisation.apiKey.key,
      adminUser: { id: adminUser.id, token: (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, adminUser.id)).token },
      memberUser: { id: memberUser.id, token: (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, memberUser.id)).token },
      workers: workers.map((worker) => ({ id: worker.id, token: worker.token })),
      offerIds: [],
    };
  };
  const home = await tenant('Fuzz Hirer', 'hirer');
  const other = await tenant('Other Agency', 'agency');

  const revokedKey = await admin.createApiKey(home.organisationId, 'revoked');
  await admin.revokeApiKey(revokedKey.id);
  const revokedWorkerToken = await adminCall<{ id: string; token: string }>('POST', `/admin/workers/${home.workers[0].id}/tokens`, 201);
  await admin.revokeWorkerToken(revokedWorkerToken.id);
  const revokedUserToken = await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, home.memberUser.id);
  await adminCall('DELETE', `/admin/user-tokens/${revokedUserToken.id}`, 204);

  const spare = {
    apiKeyIds: [(await admin.createApiKey(home.organisationId, 'spare')).id, (await admin.createApiKey(other.organisationId, 'spare')).id],
    workerTokenIds: [(await adminCall<{ id: string }>('POST', `/admin/workers/${home.workers[2].id}/tokens`, 201)).id],
    userTokenIds: [(await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, home.memberUser.id)).id],
    sessionTokens: [
      (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, home.memberUser.id)).token,
      (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, home.adminUser.id)).token,
      (await adminCall<{ token: string }>('POST', `/admin/workers/${home.workers[2].id}/tokens`, 201)).token,
    ],
  };

  // The home organisation receives webhooks at the example integrator and, where the directory lets
  // it, offers contact suggestions (searches then reach the example integrator); nothing depends on it.
  await new PortalClient(directory, home.adminUser.token).saveWebhook(urls['example-integrator'], INTEGRATOR_SECRET);
  await request(directory, 'PUT', '/portal/company-profile/suggestions', { body: { enabled: true }, headers: { authorization: `Bearer ${home.adminUser.token}` } });

  const offers = urls['offers-api'];
  for (const [owner, count] of [[home, 3], [other, 1]] as const) {
    for (let i = 0; i < count; i += 1) {
      const body = offerBody(owner.adminUser.id, owner.workers.map((worker) => worker.id));
      const created = await request<string>(offers, 'POST', '/offer', { body, headers: { authorization: `Bearer ${owner.apiKey}` } });
      owner.offerIds.push(expectStatus(created, 201).text);
    }
  }
  // A worker's answer and a new contact: each becomes a webhook delivery to the example integrator.
  const answered = await request(offers, 'PUT', `/worker/offers/${home.offerIds[0]}/response`, {
    body: { response: 'applied' },
    headers: { authorization: `Bearer ${home.workers[0].token}` },
  });
  expectStatus(answered, 200);
  await new WorkerContactsClient(directory, home.workers[1].token).addContact(home.organisationId);

  const device = await request<{ id: string }>(urls['notification-service'], 'PUT', '/worker/devices', {
    body: { token: 'fuzz-device-token-0001', platform: 'android', appVersion: '1.0.0' },
    headers: { authorization: `Bearer ${home.workers[0].token}` },
  });
  if (device.status !== 201 && device.status !== 200) expectStatus(device, 201);

  const dispatcher = urls['webhook-dispatcher'];
  const deliveries = await eventually(
    async () => {
      const listed = await request<{ items: Array<{ id: number }> }>(dispatcher, 'GET', '/admin/deliveries', {
        headers: { authorization: `Bearer ${DISPATCHER_ADMIN_TOKEN}` },
      });
      return listed.status === 200 && listed.json.items.length >= 2 ? listed.json.items : undefined;
    },
    15_000,
    'the seeded webhook deliveries',
  );

  return {
    platform,
    urls,
    directoryAdminToken: TEST_ADMIN_TOKEN,
    dispatcherAdminToken: DISPATCHER_ADMIN_TOKEN,
    integratorSecret: INTEGRATOR_SECRET,
    home,
    other,
    revoked: { apiKey: revokedKey.key, workerToken: revokedWorkerToken.token, userToken: revokedUserToken.token },
    spare,
    deviceIds: [device.json.id],
    deliveryIds: deliveries.map((delivery) => String(delivery.id)),
  };
}

/**
 * Signs people in to the portal as they do: `POST /session/links` through the portal, the code from
 * the link in the e-mail, `POST /session` with it; the cookie is what the portal set. Each address
 * is asked at most twice (contact-directory paces an address's e-mails past five an hour); addresses in parallel.
 */
async function seedPortalSessions(portal: string, origin: string, mail: SmtpSink, world: Omit<FuzzWorld, 'stop' | 'portal'>): Promise<PortalSessions> {
  const signIn = async (email: string, audience: 'portal' | 'worker'): Promise<string> => {
    const before = mail.to(email).length;
    expectStatus(await request(portal, 'POST', '/session/links', { body: { email, audience }, headers: { origin } }), 202);
    const text = (await eventually(() => mail.to(email)[before], 15_000, `the sign-in e-mail to ${email}`)).text;
    const code = /\/sign-in#code=([A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (!code) throw new Error(`no sign-in link in the e-mail to ${email}:\n${text}`);
    const session = expectStatus(await request(portal, 'POST', '/session', { body: { code }, headers: { origin } }), 201);
    const cookie = session.headers.getSetCookie().map((header) => /^__Host-portal_session=([^;]+)/.exec(header)?.[1]).find(Boolean);
    if (!cookie) throw new Error(`POST /session set no __Host-portal_session cookie for ${email}`);
    return cookie;
  };
  const address = (tenant: Tenant, who: string) => `${who}@${tenant.organisationId.slice(0, 8)}.example`;
  const { home, other } = world;
  const [[homeAdmin, spareAdmin], [homeMember, revoked], [worker], [spareWorker], [otherAdmin]] = await Promise.all([
    (async () => [await signIn(address(home, 'admin'), 'portal'), await signIn(address(home, 'admin'), 'portal')])(),
    (async () => [await signIn(address(home, 'member'), 'portal'), await signIn(address(home, 'member'), 'portal')])(),
    (async () => [await signIn(address(home, 'worker1'), 'worker')])(),
    (async () => [await signIn(address(home, 'worker3'), 'worker')])(),
    (async () => [await signIn(address(other, 'admin'), 'portal')])(),
  ]);
  expectStatus(await request(portal, 'DELETE', '/session', { headers: { cookie: `__Host-portal_session=${revoked}`, origin } }), 204);
  const kinds = new Map<string, PortalPersonKind>([
    [homeAdmin, 'portal-user'],
    [spareAdmin, 'portal-user'],
    [homeMember, 'portal-user'],
    [otherAdmin, 'portal-user'],
    [worker, 'worker'],
    [spareWorker, 'worker'],
  ]);
  const liveToken = home.adminUser.token;
  return { origin, cookieSecret: PORTAL_COOKIE_SECRET, homeAdmin, homeMember, worker, otherAdmin, revoked, liveToken, spare: [spareAdmin, spareWorker], kinds };
}
