import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { freePort, ServiceProcess, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * Per-credential rate limits, counted in Redis so every instance of a service shares them: two
 * offers-api processes with a limit of 6 requests a minute, next to a contact-directory without one.
 */
const LIMIT = 6;
let platform: TestPlatform;
let instances: ServiceProcess[];
let acme: SeededOrganisation;
let globex: SeededOrganisation;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory']);
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 1 });
  globex = await seedOrganisation(platform.admin, { name: 'Globex Hiring', workers: 1 });
  const env = { ...platform.env, RATE_LIMIT_PER_MINUTE: String(LIMIT) };
  instances = [await ServiceProcess.start({ app: 'offers-api', port: await freePort(), env }), await ServiceProcess.start({ app: 'offers-api', port: await freePort(), env })];
});

afterAll(async () => {
  await Promise.all((instances ?? []).map((instance) => instance.stop()));
  await platform?.stop();
});

const read = (instance: ServiceProcess, key?: string, path = '/offer/00000000-0000-4000-8000-000000000000') =>
  fetch(`${instance.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('rate limits', () => {
  it('answer 429 problem+json with Retry-After once a key has used its limit on any instance, and other keys carry on', async () => {
    // Spread over both instances: the count is shared.
    for (let i = 0; i < LIMIT; i += 1) expect((await read(instances[i % 2], acme.apiKey)).status).toBe(404);
    for (const instance of instances) {
      const limited = await read(instance, acme.apiKey);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await limited.json()).toMatchObject({ status: 429, type: expect.stringMatching(/\/rate-limited$/) });
    }
    // Another organisation's key, the same key in the other header, and probes are not affected.
    expect((await read(instances[0], globex.apiKey)).status).toBe(404);
    const byHeader = await fetch(`${instances[1].url}/offer/00000000-0000-4000-8000-000000000000`, { headers: { 'x-api-key': acme.apiKey } });
    expect(byHeader.status).toBe(429);
    for (const instance of instances) {
      expect((await read(instance, acme.apiKey, '/health/live')).status).toBe(200);
      expect((await read(instance, acme.apiKey, '/health')).status).toBe(200);
    }
  });

  it('count requests without a credential by client address', async () => {
    let last = 0;
    for (let i = 0; i <= LIMIT; i += 1) last = (await read(instances[i % 2])).status;
    expect(last).toBe(429);
    expect((await read(instances[0], globex.apiKey)).status).toBe(404);
  });
});
