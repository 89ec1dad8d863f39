import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { offerBody, OffersClient, type SeededOrganisation } from '@availability/platform-client';
import {
  createTestCertificates,
  eventually,
  freePort,
  queryDatabase,
  seedAgencyWithWebhooks,
  ServiceProcess,
  startTestPlatform,
  startTestPostgresServer,
  startTestRedisServer,
  type TestCertificates,
  TestIntegrator,
  type TestPlatform,
  type TestPostgresServer,
  type TestRedisServer,
  withoutRootCert,
} from '@availability/testing';

/**
 * The platform's own servers across a network, as a deployment whose PostgreSQL, NATS and Redis are
 * not on the services' machine has them: each server takes TLS connections only, with a certificate
 * from a private CA made for this run, and is addressed by host name; NATS is a three-server cluster
 * whose routes use mutual TLS, as production runs it. The services trust that CA
 * through DATABASE_CA_FILE, NATS_CA_FILE and REDIS_CA_FILE.
 * The whole journey runs, a retry goes through Redis, PostgreSQL restarting in the middle of requests
 * answers 503 rather than 500, and a service that cannot trust a server's certificate does not start.
 */
const SECRET = 'infrastructure-tls-secret-0123456789';
const SERVICES = ['contact-directory', 'offers-api', 'webhook-dispatcher', 'notification-service'];

let certificates: TestCertificates;
let postgres: TestPostgresServer;
let redis: TestRedisServer;
let platform: TestPlatform;
let integrator: TestIntegrator;
let agency: SeededOrganisation;
let sender: OffersClient;

beforeAll(async () => {
  certificates = await createTestCertificates();
  const tls = { certificate: certificates.localhost, caFile: certificates.caFile };
  [postgres, redis] = await Promise.all([startTestPostgresServer({ tls }), startTestRedisServer({ tls: certificates })]);
  // The first call of every webhook is refused, so each delivery needs its retry: a BullMQ job in Redis.
  integrator = await TestIntegrator.start({ secret: SECRET, refuseFirstCallTo: '/offer/response' });
  platform = await startTestPlatform(
    SERVICES,
    { WEBHOOK_ALLOW_LOOPBACK: 'true', DATABASE_CA_FILE: certificates.caFile, REDIS_URL: redis.url, REDIS_CA_FILE: certificates.caFile, DATABASE_CONNECT_TIMEOUT_MS: '2000' },
    // The test's own clients name the CA in the URL; the services are given it as DATABASE_CA_FILE.
    { adminDatabaseUrl: postgres.url, serviceDatabaseUrl: withoutRootCert, natsCluster: true, natsTls: certificates },
  );
  agency = await seedAgencyWithWebhooks(platform, { name: 'TLS Staffing', workers: 3, integratorUrl: integrator.url, secret: SECRET });
  sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
}, 180_000);

afterAll(async () => {
  // stop() throws when the bus refused a service; the servers and the integrator must go anyway, or Jest never exits.
  try {
    await platform?.stop();
  } finally {
    integrator?.close();
    await Promise.all([postgres?.stop(), redis?.stop()]);
    await certificates?.remove();
  }
});

async function newOffer(): Promise<string> {
  const created = await sender.createOffer(offerBody(agency.user.id, agency.workers.map((w) => w.id)));
  expect(created.status).toBe(201);
  return created.text;
}

/** An answer now reaches the integrator: refused once, then delivered by its retry under the same webhook-id. */
async function expectAnswerDelivered(offerId: string, workerIndex: number, offersApiUrl = platform.url('offers-api')): Promise<void> {
  expect((await new OffersClient(offersApiUrl, agency.workers[workerIndex].token).answer(offerId, 'applied')).status).toBe(200);
  const delivered = await eventually(() => integrator.callsTo('/offer/response').find((call) => call.body.includes(offerId) && call.body.includes(agency.workers[workerIndex].id)), 30_000, 'the answer’s webhook');
  await eventually(() => integrator.withId(delivered.webhookId).length === 2, 30_000, 'the retry');
  expect(integrator.withId(delivered.webhookId).map((call) => call.verified)).toEqual([true, true]);
}

/**
 * Waits for an instance's /health to answer `status`; if it never does, says how the instance ended
 * and what it logged (an instance once stopped answering here in CI, and the cause was not seen).
 */
async function healthBecomes(instance: ServiceProcess, status: number, withinMs: number, what: string): Promise<void> {
  try {
    await eventually(async () => (await fetch(`${instance.url}/health`)).status === status, withinMs, `${instance.url} ${what}`);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nexit: ${JSON.stringify(instance.exit ?? 'still running')}\nits log:\n${instance.logs().slice(-4_000)}`);
  }
}

describe('PostgreSQL, NATS and Redis over TLS', () => {
  it('every service holds TLS connections to PostgreSQL; a connection without TLS is refused', async () => {
    const sessions = await queryDatabase<{ application_name: string; ssl: boolean }>(
      postgres.url,
      'SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = $1',
      [platform.database.name],
    );
    expect(new Set(sessions.map((session) => session.application_name))).toEqual(new Set(SERVICES));
    expect(sessions.every((session) => session.ssl)).toBe(true);
    const plain = new URL(postgres.url);
    plain.search = '?sslmode=disable';
    await expect(queryDatabase(plain.toString(), 'SELECT 1')).rejects.toThrow(/no pg_hba.conf entry .* no encryption/);
  });

  it('an offer reaches the workers, an answer reaches the integrator, its retry goes through Redis', async () => {
    const offerId = await newOffer();
    // notification-service took the offer's event from NATS and wrote each worker's notification.
    await eventually(
      async () => (await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(*)::int AS n FROM notifications.worker_notification WHERE offer_id = $1', [offerId]))[0].n === 3,
      30_000,
      'the workers’ notifications',
    );
    await expectAnswerDelivered(offerId, 0);
  });

  it('PostgreSQL restarting in the middle of requests, two instances of every service: 200 or 503 with Retry-After, never 500; then serving again', async () => {
    // A second instance of each service, as a deployment runs at least two of each: both instances'
    // pools, relays and consumers go through the restart.
    const second = await Promise.all(SERVICES.map(async (app) => ServiceProcess.start({ app, port: await freePort(), env: platform.env })));
    const secondOffersApi = second[SERVICES.indexOf('offers-api')].url;
    try {
      const offerId = await newOffer();
      const statuses: Array<{ instance: number; status: number; retryAfter: string | null }> = [];
      const senders = [sender, new OffersClient(secondOffersApi, agency.apiKey)];
      let reading = true;
      const readers = Array.from({ length: 4 }, async (_, i) => {
        while (reading) {
          const result = await senders[i % 2].getOffer(offerId);
          statuses.push({ instance: i % 2, status: result.status, retryAfter: result.headers.get('retry-after') });
        }
      });
      await eventually(() => statuses.length >= 8, 10_000, 'reads under way');
      await postgres.shutDown();
      await eventually(() => [0, 1].every((instance) => statuses.some((entry) => entry.instance === instance && entry.status === 503)), 10_000, 'each instance answering 503 while the server is down');
      const instances = [...SERVICES.map((app) => platform.services[app]), ...second];
      // Every instance, the second ones included, reports itself not ready while its database is gone.
      for (const instance of instances) await healthBecomes(instance, 503, 10_000, 'not ready');
      await postgres.startAgain();
      const countBefore = statuses.length;
      await eventually(() => [0, 1].every((instance) => statuses.slice(countBefore).some((entry) => entry.instance === instance && entry.status === 200)), 20_000, 'both instances serving again');
      reading = false;
      await Promise.all(readers);
      expect(statuses.filter((entry) => entry.status !== 200 && !(entry.status === 503 && entry.retryAfter === '1'))).toEqual([]);
      // And ready again: its database connections came back.
      for (const instance of instances) await healthBecomes(instance, 200, 20_000, 'ready again');
      await expectAnswerDelivered(offerId, 1);
      await expectAnswerDelivered(offerId, 2, secondOffersApi);
    } finally {
      await Promise.all(second.map((service) => service.stop()));
    }
  });

  it('a service that cannot trust a server’s certificate does not start, and says which server', async () => {
    const stranger = await createTestCertificates();
    try {
      const attempts: Array<{ name: string; env: Record<string, string> }> = [
        { name: 'PostgreSQL', env: { DATABASE_CA_FILE: stranger.caFile } },
        { name: 'NATS', env: { NATS_CA_FILE: stranger.caFile } },
      ];
      for (const attempt of attempts) {
        const service = new ServiceProcess({ app: 'offers-api', port: await freePort(), env: { ...platform.env, ...attempt.env } });
        const failure = await service.start().then(
          () => undefined,
          (error: Error) => error.message,
        );
        await service.kill();
        // NATS names each server of its cluster.
        expect(failure).toMatch(new RegExp(`exited with [1-9][\\s\\S]*${attempt.name} at localhost:\\d+(, localhost:\\d+)* \\(\\w+\\) cannot be reached: .*certificate`));
      }
      // Redis: the dispatcher starts (an answer's first attempt needs no Redis) but is not ready, says
      // why in its log, and still stops when asked (its graceful stop waits for no Redis).
      const dispatcher = await ServiceProcess.start({ app: 'webhook-dispatcher', port: await freePort(), env: { ...platform.env, REDIS_CA_FILE: stranger.caFile } });
      try {
        const health = await fetch(`${dispatcher.url}/health`, { signal: AbortSignal.timeout(3_000) });
        expect([health.status, ((await health.json()) as { detail: string }).detail]).toEqual([503, 'Not ready: redis does not answer.']);
        expect(dispatcher.logs()).toMatch(/redis: .*certificate/);
        const stopping = dispatcher.stop().then(() => 'stopped');
        expect(await Promise.race([stopping, sleep(10_000, 'still running', { ref: false })])).toBe('stopped');
      } finally {
        await dispatcher.kill();
      }
    } finally {
      await stranger.remove();
    }
  });
});
