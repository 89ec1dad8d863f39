import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestCertificates,
  eventually,
  freePort,
  ServiceProcess,
  startTestPlatform,
  TEST_ADMIN_TOKEN,
  type TestCertificates,
  TestIntegrator,
  type TestPlatform,
} from '@availability/testing';
import { DirectoryAdminClient, HttpError, issuePortalUserToken, PortalClient, seedOrganisation, WorkerContactsClient } from '@availability/platform-client';

/**
 * An integrator on https with a certificate from a private CA (made for this run): the platform
 * trusts it once that CA is given in OUTBOUND_CA_FILE. Registration calls /test and /test/auth over
 * TLS, and webhooks arrive signed over TLS; without the CA, or with an expired certificate, the
 * company profile is refused with the tls reason in plain words.
 */
const SECRET = 'https-integrator-secret-0123456789';

let certificates: TestCertificates;
let platform: TestPlatform;
/** A stand-in integrator answering the set-up calls and webhooks at `https://localhost:<port>`, verifying signatures. */
let integrator: TestIntegrator;

/** A new organisation with a signed-in portal admin and one worker. */
async function organisation(name: string, directoryUrl = platform.url('contact-directory')) {
  const seeded = await seedOrganisation(new DirectoryAdminClient(directoryUrl, TEST_ADMIN_TOKEN), { name, workers: 1 });
  const token = await issuePortalUserToken(directoryUrl, TEST_ADMIN_TOKEN, seeded.user.id);
  return { ...seeded, portal: new PortalClient(directoryUrl, token.token) };
}

/** The 422 problem of a refused company profile. */
async function refusal(portal: PortalClient, baseUrl: string): Promise<{ detail: string; errors?: Record<string, string[]> }> {
  const error = await portal.saveWebhook(baseUrl, SECRET).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpError);
  expect((error as HttpError).result.status).toBe(422);
  return (error as HttpError).result.json as { detail: string; errors?: Record<string, string[]> };
}

beforeAll(async () => {
  certificates = await createTestCertificates();
  integrator = await TestIntegrator.start({ secret: SECRET, certificate: certificates.localhost });
  platform = await startTestPlatform(['contact-directory', 'webhook-dispatcher'], {
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    OUTBOUND_CA_FILE: certificates.caFile,
  });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  integrator?.close();
  await certificates?.remove();
});

describe('an integrator on https with a private CA', () => {
  it('registers: GET /test and the signed GET /test/auth pass over TLS, and a signed webhook arrives over TLS', async () => {
    const org = await organisation('Https Integrator Org');
    const profile = await org.portal.saveWebhook(integrator.url, SECRET);
    expect(profile).toMatchObject({ baseUrl: integrator.url, secretSet: true });
    expect(integrator.calls.map(({ method, path, verified, overTls }) => ({ method, path, verified, overTls }))).toEqual([
      { method: 'GET', path: '/test', verified: false, overTls: true },
      { method: 'GET', path: '/test/auth', verified: true, overTls: true },
      // The set-up check's forged and stale calls, refused: the profile carries no warning.
      { method: 'GET', path: '/test/auth', verified: false, overTls: true },
      { method: 'GET', path: '/test/auth', verified: false, overTls: true },
    ]);
    expect(profile).toMatchObject({ verificationWarning: null });

    const worker = org.workers[0];
    expect(await new WorkerContactsClient(platform.url('contact-directory'), worker.token).addContact(org.organisation.id)).toBe(true);
    const webhook = await eventually(
      async () => integrator.calls.find((request) => request.path === `/contact/new/${worker.id}`),
      20_000,
      'the contacts.added webhook at the integrator',
    );
    expect(webhook).toMatchObject({ method: 'GET', verified: true, overTls: true });
  });

  it('refuses the profile with the tls reason when the certificate has expired', async () => {
    const expired = await TestIntegrator.start({ secret: SECRET, certificate: certificates.expired });
    try {
      const org = await organisation('Expired Certificate Org');
      const problem = await refusal(org.portal, expired.url);
      expect(problem.detail).toMatch(/GET \/test failed: TLS failed: the certificate has expired/);
      expect(problem.errors?.baseUrl?.[0]).toMatch(/the certificate has expired/);
      expect(expired.calls).toHaveLength(0);
    } finally {
      expired.close();
    }
  });

  it('refuses the profile with the tls reason where the CA is not configured', async () => {
    const untrusting = await ServiceProcess.start({
      app: 'contact-directory',
      port: await freePort(),
      env: { ...platform.env, OUTBOUND_CA_FILE: '' },
    });
    try {
      const org = await organisation('Unknown CA Org', untrusting.url);
      const problem = await refusal(org.portal, integrator.url);
      expect(problem.detail).toMatch(/GET \/test failed: TLS failed: the certificate is signed by an authority the platform does not trust/);
    } finally {
      await untrusting.stop();
    }
  });
});
