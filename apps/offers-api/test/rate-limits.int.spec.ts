import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { expectStatus, issuePortalUserToken, request, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { freePort, ServiceProcess, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * Per-credential rate limits, counted in Redis so every instance of a service shares them: two
 * offers-api processes with a limit of 6 requests a minute, next to a contact-directory without one.
 * A third offers-api, with limits of its own and too high to reach, shows who each request is
 * charged to by its x-ratelimit-remaining.
 */
const LIMIT = 6;
const OFFER_PATH = '/offer/00000000-0000-4000-8000-000000000000';
let platform: TestPlatform;
let instances: ServiceProcess[];
let metered: ServiceProcess;
let acme: SeededOrganisation;
let globex: SeededOrganisation;
let initech: SeededOrganisation;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory']);
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 1 });
  globex = await seedOrganisation(platform.admin, { name: 'Globex Hiring', workers: 1 });
  initech = await seedOrganisation(platform.admin, { name: 'Initech', workers: 1 });
  const env = { ...platform.env, RATE_LIMIT_PER_MINUTE: String(LIMIT) };
  instances = [await ServiceProcess.start({ app: 'offers-api', port: await freePort(), env }), await ServiceProcess.start({ app: 'offers-api', port: await freePort(), env })];
  metered = await ServiceProcess.start({
    app: 'offers-api',
    port: await freePort(),
    env: { ...platform.env, RATE_LIMIT_PER_MINUTE: '1000000', QUEUE_PREFIX: `${platform.env.QUEUE_PREFIX}_metered` },
  });
});

afterAll(async () => {
  await Promise.all([...(instances ?? []), metered].filter(Boolean).map((instance) => instance.stop()));
  await platform?.stop();
});

const read = (instance: ServiceProcess, key?: string, path = OFFER_PATH) => fetch(`${instance.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

interface RawAnswer {
  status: number;
  remaining: number;
  reset: number;
}

/**
 * A GET with headers exactly as given, in order, names as spelt and repeated as listed (fetch would
 * merge and lower-case them), as a hostile client sends them.
 */
function rawGet(instance: ServiceProcess, path: string, headers: Array<[string, string]>): Promise<RawAnswer> {
  const url = new URL(instance.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers: [['host', url.host], ...headers].flat(), agent: false }, (answer) => {
      answer.resume();
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 0, remaining: Number(answer.headers['x-ratelimit-remaining']), reset: Number(answer.headers['x-ratelimit-reset']) }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

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
    const byHeader = await fetch(`${instances[1].url}${OFFER_PATH}`, { headers: { 'x-api-key': acme.apiKey } });
    expect(byHeader.status).toBe(429);
    for (const instance of instances) {
      expect((await read(instance, acme.apiKey, '/health/live')).status).toBe(200);
      expect((await read(instance, acme.apiKey, '/health')).status).toBe(200);
    }
  });

  it('count an API key against one budget whichever header carries it and whatever is sent beside it', async () => {
    const junk = () => randomBytes(12).toString('base64url');
    const forms: Array<() => Array<[string, string]>> = [
      () => [['authorization', `Bearer ${initech.apiKey}`]],
      () => [['X-Api-Key', initech.apiKey]],
      // Not a Bearer credential: authentication takes the X-Api-Key beside it.
      () => [['Authorization', junk()], ['x-api-key', initech.apiKey]],
      () => [['authorization', `Basic ${junk()}`], ['X-API-KEY', initech.apiKey]],
    ];
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + forms.length; i += 1) statuses.push((await rawGet(instances[i % 2], OFFER_PATH, forms[i % forms.length]())).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(404), ...Array(forms.length).fill(429)]);
  });

  it('count requests without a credential by client address', async () => {
    let last = 0;
    for (let i = 0; i <= LIMIT; i += 1) last = (await read(instances[i % 2])).status;
    expect(last).toBe(429);
    expect((await read(instances[0], globex.apiKey)).status).toBe(404);
  });

  it('count a credential nobody holds by client address: a new made-up token is no new budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1) statuses.push((await read(instances[i % 2], `apk_${randomBytes(32).toString('base64url')}`)).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await read(instances[0], `made-up-${randomUUID()}`)).status).toBe(429);
    expect((await read(instances[1])).status).toBe(429);
    expect((await read(instances[1], globex.apiKey)).status).toBe(404);
  });
});

describe('who a request is charged to', () => {
  /** Whom a request is charged to: a principal of the directory, or the client's address. */
  type Principal = 'acme' | 'acme-worker' | 'acme-user' | 'globex' | 'address';
  let tokens: Map<string, Principal>;
  let canonical: Record<Principal, Array<[string, string]>>;

  beforeAll(async () => {
    const directory = platform.url('contact-directory');
    const admin = { authorization: `Bearer ${platform.env.DIRECTORY_ADMIN_TOKEN}` };
    // Two tokens of one worker, and two of one portal user: each person is one principal.
    const secondWorkerToken = expectStatus(await request<{ token: string }>(directory, 'POST', `/admin/workers/${acme.workers[0].id}/tokens`, { headers: admin }), 201).json.token;
    const userTokens = [await issuePortalUserToken(directory, platform.env.DIRECTORY_ADMIN_TOKEN, acme.user.id), await issuePortalUserToken(directory, platform.env.DIRECTORY_ADMIN_TOKEN, acme.user.id)];
    tokens = new Map<string, Principal>([
      [acme.apiKey, 'acme'],
      [acme.workers[0].token, 'acme-worker'],
      [secondWorkerToken, 'acme-worker'],
      [userTokens[0].token, 'acme-user'],
      [userTokens[1].token, 'acme-user'],
      [globex.apiKey, 'globex'],
    ]);
    canonical = {
      acme: [['authorization', `Bearer ${acme.apiKey}`]],
      'acme-worker': [['authorization', `Bearer ${acme.workers[0].token}`]],
      'acme-user': [['authorization', `Bearer ${userTokens[0].token}`]],
      globex: [['authorization', `Bearer ${globex.apiKey}`]],
      address: [],
    };
  });

  const valid = () => fc.constantFrom(...tokens.keys());
  const madeUp = fc.oneof(
    fc.tuple(fc.constantFrom('apk_', 'wkt_', 'put_', ''), fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/)).map(([prefix, rest]) => prefix + rest),
    fc.constantFrom('x'.repeat(600), 'null', 'undefined'),
  );
  const token = () => fc.oneof({ weight: 3, arbitrary: valid() }, { weight: 2, arbitrary: madeUp });
  const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR');
  const space = fc.constantFrom(' ', '  ', '\t');
  const authorizationValue = () =>
    fc.oneof(
      fc.tuple(scheme, space, token(), fc.constantFrom('', ' ', '  ')).map(([s, gap, t, end]) => `${s}${gap}${t}${end}`),
      token(),
      madeUp.map((t) => `Basic ${t}`),
      fc.constantFrom('', 'Bearer', 'Bearer a b', 'Bearer '),
    );
  const apiKeyValue = () => fc.oneof({ weight: 3, arbitrary: token() }, { weight: 1, arbitrary: token().map((t) => ` ${t} `) });
  /** Each header absent, once or twice (a repeated Authorization is dropped, a repeated X-Api-Key joined), its name in any case. */
  const header = (names: string[], value: fc.Arbitrary<string>) =>
    fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 2 }).map((pairs) => pairs as Array<[string, string]>);
  const credentialHeaders = () =>
    fc
      .tuple(header(['authorization', 'Authorization', 'AUTHORIZATION'], authorizationValue()), header(['x-api-key', 'X-Api-Key', 'X-API-KEY'], apiKeyValue()), fc.boolean())
      .map(([authorization, apiKey, apiKeyFirst]) => (apiKeyFirst ? [...apiKey, ...authorization] : [...authorization, ...apiKey]));

  /**
   * Whom authentication settles on, as the services document it: the token of `Authorization:
   * Bearer <token>`, else X-Api-Key's; its holder if the directory knows it, else the client address.
   * Node keeps the first of repeated Authorization headers and joins repeated X-Api-Key ones.
   */
  function expectedPrincipal(headers: Array<[string, string]>): Principal {
    const values = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, value]) => value);
    const authorization = values('authorization')[0];
    const apiKey = values('x-api-key').length > 0 ? values('x-api-key').join(', ') : undefined;
    const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    const presented = bearer ?? (apiKey !== undefined && apiKey.length > 0 ? apiKey.trim() : undefined);
    return (presented !== undefined && tokens.get(presented)) || 'address';
  }

  it('is whom authentication settles on, whichever header carries the credential and whatever is beside it; else the client address', async () => {
    const paths = fc.constantFrom(OFFER_PATH, `${OFFER_PATH}/withdraw`, '/worker/offers', '/portal/offers');
    await fc.assert(
      fc.asyncProperty(credentialHeaders(), paths, async (headers, path) => {
        const principal = expectedPrincipal(headers);
        const before = await rawGet(metered, OFFER_PATH, canonical[principal]);
        const answer = await rawGet(metered, path, headers);
        const after = await rawGet(metered, OFFER_PATH, canonical[principal]);
        // A new window began between the two reads: nothing to compare.
        fc.pre(after.reset <= before.reset && after.remaining <= before.remaining);
        expect(answer.status).toBeLessThan(500);
        expect({ principal, charged: before.remaining - after.remaining }).toEqual({ principal, charged: 2 });
      }),
      { numRuns: 150 },
    );
  });
});
