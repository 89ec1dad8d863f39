import { randomBytes } from 'node:crypto';
import { DirectoryAdminClient, issuePortalUserToken, PortalClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { generateSigningKeysJson } from '@availability/webhook-signing';
import { freePort, ServiceProcess } from './service-process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { createTestEventNamespace, type TestEventNamespace, type TestEventNamespaceOptions } from './test-events.js';
import { generateTestVapidKeys } from './test-push-service.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * Real services as separate processes, on a private database and a private NATS subject namespace:
 * what a test suite drives over HTTP and NATS.
 */
export interface TestPlatform {
  database: TestDatabase;
  events: TestEventNamespace;
  services: Record<string, ServiceProcess>;
  env: Record<string, string>;
  admin: DirectoryAdminClient;
  url(app: string): string;
  stop(): Promise<void>;
}

/**
 * The portal in front of a test platform's services, on `port` (chosen before the platform starts,
 * so the services' PORTAL_URL, where sign-in links point, can name it), with the platform's settings.
 */
export async function startTestPortal(platform: TestPlatform, port: number, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return ServiceProcess.start({
    app: 'portal',
    port,
    env: {
      ...platform.env,
      PORTAL_URL: `http://localhost:${port}`,
      DIRECTORY_URL: platform.url('contact-directory'),
      OFFERS_API_URL: platform.url('offers-api'),
      NOTIFICATION_SERVICE_URL: platform.url('notification-service'),
      WEBHOOK_DISPATCHER_URL: platform.url('webhook-dispatcher'),
      ...env,
    },
  });
}

export interface TestPlatformOptions extends TestEventNamespaceOptions {
  /** The address the services are given for the database (e.g. a DatabaseProxy's); the test's own queries use the real one. */
  serviceDatabaseUrl?: (url: string) => string;
  /** The PostgreSQL server the platform's database is made on, as its admin URL (a TestPostgresServer's); default the shared one. */
  adminDatabaseUrl?: string;
}

/** `natsCluster`: on a three-node NATS cluster with the stream replicated three times (`platform.events.cluster`). */
export async function startTestPlatform(apps: string[], extraEnv: Record<string, string> = {}, options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const database = await createTestDatabase(options.adminDatabaseUrl);
  const events = await createTestEventNamespace(options);
  // One signing key for every service of the run, generated now: contact-directory and webhook-dispatcher
  // both sign v1a, and the dispatcher publishes the key.
  const env = {
    ...events.env,
    DATABASE_URL: options.serviceDatabaseUrl?.(database.url) ?? database.url,
    DIRECTORY_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    WEBHOOK_SIGNING_KEYS: generateSigningKeysJson(`test-${randomBytes(4).toString('hex')}`),
    // notification-service's Web Push identity (VAPID), generated now like the signing key.
    ...generateTestVapidKeys().env,
    ...extraEnv,
  };
  const services: Record<string, ServiceProcess> = {};
  try {
    for (const app of apps) services[app] = await ServiceProcess.start({ app, port: await freePort(), env });
  } catch (error) {
    await Promise.all(Object.values(services).map((service) => service.kill()));
    await events.dispose();
    await database.drop();
    throw error;
  }
  const url = (app: string) => {
    const service = services[app];
    if (!service) throw new Error(`${app} is not part of this test platform`);
    return service.url;
  };
  return {
    database,
    events,
    services,
    env,
    admin: new DirectoryAdminClient(services['contact-directory']?.url ?? '', TEST_ADMIN_TOKEN),
    url,
    async stop() {
      await Promise.all(Object.values(services).map((service) => service.stop()));
      await events.dispose();
      await database.drop();
    },
  };
}

/**
 * An agency with `workers` workers whose webhooks go to `integratorUrl`, signed with `secret`: saved
 * through the portal as its admin would, so the platform has checked `/test` and `/test/auth` first.
 */
export async function seedAgencyWithWebhooks(platform: TestPlatform, options: { name: string; workers: number; integratorUrl: string; secret: string }): Promise<SeededOrganisation> {
  const agency = await seedOrganisation(platform.admin, { name: options.name, workers: options.workers });
  const directory = platform.url('contact-directory');
  const portal = new PortalClient(directory, (await issuePortalUserToken(directory, platform.env.DIRECTORY_ADMIN_TOKEN, agency.user.id)).token);
  await portal.saveWebhook(options.integratorUrl, options.secret);
  return agency;
}

