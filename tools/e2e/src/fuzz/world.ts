import { DirectoryAdminClient, expectStatus, issuePortalUserToken, offerBody, PortalClient, request, WorkerContactsClient } from '@availability/platform-client';
import { eventually, freePort, SmtpSink, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';

/** Every service with HTTP endpoints; contact-directory first (the others ask it over NATS from start-up). */
export const FUZZED_APPS = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'];

export const DISPATCHER_ADMIN_TOKEN = 'fuzz-dispatcher-admin-token-0123456789abcdef';
export const INTEGRATOR_SECRET = 'fuzz-integrator-secret-0123456789';

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
  WEBHOOK_BACKOFF_BASE_MS: '3600000',
  WEBHOOK_TEST_TIMEOUT_MS: '1000',
  SUGGESTIONS_TIMEOUT_MS: '500',
  EMAIL_DIGEST_WINDOW_MS: '3600000',
  PUSH_BACKOFF_MS: '3600000',
  EMAIL_BACKOFF_MS: '3600000',
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
  /** Ids the DELETE endpoints may revoke without locking the fuzzer out. */
  spare: { apiKeyIds: string[]; workerTokenIds: string[]; userTokenIds: string[] };
  deviceIds: string[];
  deliveryIds: string[];
  stop(): Promise<void>;
}

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const mail = new SmtpSink();
  const smtpPort = await freePort();
  await mail.listen(smtpPort);
  let platform: TestPlatform;
  try {
    platform = await startTestPlatform(FUZZED_APPS, { ...QUIET_ENV, SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
  } catch (error) {
    await mail.close();
    throw error;
  }
  const stop = async () => {
    await platform.stop();
    await mail.close();
  };
  try {
    return { ...(await seedWorld(platform)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function seedWorld(platform: TestPlatform): Promise<Omit<FuzzWorld, 'stop'>> {
  const urls = Object.fromEntries(FUZZED_APPS.map((app) => [app, platform.url(app)]));
  const directory = urls['contact-directory'];
  const admin = new DirectoryAdminClient(directory, TEST_ADMIN_TOKEN);
  const adminCall = async <T>(method: string, path: string, status: number, body?: unknown) =>
    expectStatus(await request<T>(directory, method, path, { body, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }), status).json;

  const tenant = async (name: string, kind: 'hirer' | 'agency'): Promise<Tenant> => {
    const organisation = await admin.createOrganisation(name, kind);
    const slug = organisation.id.slice(0, 8);
    const adminUser = await admin.createUser(organisation.id, { email: `admin@${slug}.example`, name: `${name} admin`, role: 'admin' });
    const memberUser = await admin.createUser(organisation.id, { email: `member@${slug}.example`, name: `${name} member`, role: 'member' });
    const workers = await admin.createWorkers(organisation.id, [{ name: `${name} worker 1` }, { name: `${name} worker 2` }, { name: `${name} worker 3` }]);
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
