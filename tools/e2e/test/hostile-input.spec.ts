import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { issuePortalUserToken, offerBody, request, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';

/**
 * What a hostile or clumsy client can send to any service: control characters and broken Unicode in
 * strings, absurd nesting, bodies over the limit, malformed requests Fastify or Node reject before our
 * code runs, odd query strings. Every answer is a 4xx problem+json, never a 5xx, never a dropped
 * connection. Each service runs as its own process over real PostgreSQL and NATS.
 */
const DISPATCHER_ADMIN_TOKEN = 'test-dispatcher-admin-token-0123456789';

let platform: TestPlatform;
let acme: SeededOrganisation;
let portalToken: string;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher'], {
    DISPATCHER_ADMIN_TOKEN,
    PUSH_TRANSPORT: 'recording',
    // A request must arrive whole within 5 s here (30 s by default), so the 408 below comes quickly.
    HTTP_REQUEST_TIMEOUT_MS: '5000',
  });
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 2 });
  portalToken = (await issuePortalUserToken(platform.url('contact-directory'), TEST_ADMIN_TOKEN, acme.user.id)).token;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

type Call = { app: string; method: string; path: string; token: () => string; body: (value: unknown) => unknown; field: string };

/** One typed string field per service, with the body that carries a value in it. */
const STRING_FIELDS: Call[] = [
  { app: 'offers-api', method: 'POST', path: '/offer', token: () => acme.apiKey, field: 'title', body: (v) => offerBody(acme.user.id, [acme.workers[0].id], { title: v }) },
  { app: 'offers-api', method: 'POST', path: '/offer', token: () => acme.apiKey, field: 'details', body: (v) => offerBody(acme.user.id, [acme.workers[0].id], { details: v }) },
  {
    app: 'offers-api',
    method: 'POST',
    path: '/offer',
    token: () => acme.apiKey,
    field: 'locationPlaceId',
    body: (v) => offerBody(acme.user.id, [acme.workers[0].id], { locationPlaceId: v }),
  },
  { app: 'contact-directory', method: 'POST', path: '/admin/organisations', token: () => TEST_ADMIN_TOKEN, field: 'name', body: (v) => ({ name: v, kind: 'hirer' }) },
  {
    app: 'contact-directory',
    method: 'POST',
    path: '/portal/invitations',
    token: () => portalToken,
    field: 'invitations[0].name',
    body: (v) => ({ invitations: [{ name: v, emailAddress: 'jo@example.com' }] }),
  },
  {
    app: 'notification-service',
    method: 'PUT',
    path: '/worker/devices',
    token: () => acme.workers[0].token,
    field: 'appVersion',
    body: (v) => ({ token: 'fcm-token-0123456789', platform: 'android', appVersion: v }),
  },
  {
    app: 'webhook-dispatcher',
    method: 'POST',
    path: '/admin/deliveries/redeliver',
    token: () => DISPATCHER_ADMIN_TOKEN,
    field: 'organisationId',
    body: (v) => ({ since: '2026-01-01T00:00:00Z', organisationId: v }),
  },
];

async function send(call: Pick<Call, 'app' | 'method' | 'path' | 'token'>, rawBody?: string, headers: Record<string, string> = {}) {
  return request(platform.url(call.app), call.method, call.path, {
    rawBody,
    headers: { authorization: `Bearer ${call.token()}`, ...(rawBody === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
  });
}

function expectProblem(result: { status: number; headers: Headers; json: unknown }, status: number) {
  expect({ status: result.status, type: result.headers.get('content-type') }).toEqual({ status, type: expect.stringMatching(/^application\/problem\+json/) });
  expect(result.json).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
}

describe('strings PostgreSQL or JSON cannot hold', () => {
  for (const call of STRING_FIELDS) {
    for (const [name, value] of [
      ['NUL', 'Pick\u0000ers'],
      ['a lone high surrogate', 'Pick\ud800ers'],
      ['a lone low surrogate', '\udc00'],
    ] as const) {
      it(`${call.app} ${call.method} ${call.path}: ${name} in ${call.field} is a 400 naming the field`, async () => {
        // JSON.stringify writes both as \u escapes: valid JSON whose strings are not valid text.
        const result = await send(call, JSON.stringify(call.body(value)));
        expectProblem(result, 400);
        expect(Object.keys((result.json as { errors: object }).errors)).toEqual([call.field]);
      });
    }
  }

  it('a NUL in a property name is a 400 too', async () => {
    const body = JSON.stringify({ ...offerBody(acme.user.id, [acme.workers[0].id]), 'sur\u0000prise': 1 });
    const result = await send(STRING_FIELDS[0], body);
    expectProblem(result, 400);
  });

  it.each([
    ['offers-api', '/worker/offers?before=%00'],
    ['offers-api', '/worker/offers?api-version=%00'],
    ['offers-api', '/worker/offers?sur%00prise=1'],
    ['offers-api', '/worker/offers/%00'],
    ['offers-api', '/worker/offers/%ED%A0%80'],
  ])('%s GET %s: NUL or a lone surrogate in the query or path is a 4xx problem', async (app, path) => {
    const result = await request(platform.url(app), 'GET', path, { headers: { authorization: `Bearer ${acme.workers[0].token}` } });
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('webhook-dispatcher GET /admin/deliveries?organisationId=%00 is a 400 naming the parameter', async () => {
    const result = await request(platform.url('webhook-dispatcher'), 'GET', '/admin/deliveries?organisationId=a%00b', {
      headers: { authorization: `Bearer ${DISPATCHER_ADMIN_TOKEN}` },
    });
    expectProblem(result, 400);
    expect((result.json as { errors: object }).errors).toHaveProperty(['organisationId']);
  });
});

/** `[[[…"x"…]]]`, `depth` arrays deep, as JSON text (JSON.stringify itself would recurse). */
const nestedJson = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

describe('bodies whose structure alone is too costly', () => {
  it.each([
    ['100,000 items', () => JSON.stringify({ ...offerBody(acme.user.id, [acme.workers[0].id]), x: Array(100_000).fill(0) })],
    ['an object of 1,000 properties', () => JSON.stringify({ ...offerBody(acme.user.id, [acme.workers[0].id]), x: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 0])) })],
    // As many as fit the 1 MiB limit.
    ['half a million nested arrays', () => `{"x":${'['.repeat(500_000)}${']'.repeat(500_000)}}`],
  ])('POST /offer with %s, even in an unknown property, is a 400 naming body', async (_name, body) => {
    const result = await send(STRING_FIELDS[0], body());
    expectProblem(result, 400);
    expect(Object.keys((result.json as { errors: object }).errors)).toEqual(['body']);
  });
});

describe('deep nesting', () => {
  const deep = nestedJson(10_000);
  it.each([
    ['offers-api', 'POST', '/offer', () => acme.apiKey, () => JSON.stringify(offerBody(acme.user.id, [acme.workers[0].id])).replace('"Warehouse pickers, night shift"', deep)],
    ['offers-api', 'PUT', '/worker/offers/00000000-0000-4000-8000-000000000000/response', () => acme.workers[0].token, () => `{"response":${deep}}`],
    ['contact-directory', 'POST', '/portal/invitations', () => portalToken, () => `{"invitations":[{"name":${deep},"emailAddress":"jo@example.com"}]}`],
    ['contact-directory', 'POST', '/portal/contact-suggestions/search', () => portalToken, () => `{"filter":${deep}}`],
    ['notification-service', 'PUT', '/worker/devices', () => acme.workers[0].token, () => `{"token":"fcm-token-0123456789","platform":"android","appVersion":${deep}}`],
    ['webhook-dispatcher', 'POST', '/admin/deliveries/redeliver', () => DISPATCHER_ADMIN_TOKEN, () => `{"since":"2026-01-01T00:00:00Z","statuses":${deep}}`],
  ])('%s %s %s: JSON nested 10,000 deep in a field is a 400', async (app, method, path, token, body) => {
    const result = await send({ app, method, path, token }, body());
    expectProblem(result, 400);
  });
});

describe('shapes the DTOs do not expect', () => {
  it.each([
    ['contact-directory', 'POST', '/portal/invitations', () => portalToken, '{"invitations":[[]]}', 'invitations[0]'],
    ['contact-directory', 'POST', '/portal/invitations', () => portalToken, '{"invitations":["jo@example.com"]}', 'invitations[0]'],
    ['contact-directory', 'POST', '/admin/organisations/{org}/workers/bulk', () => TEST_ADMIN_TOKEN, '{"workers":[[{"name":"x"}]]}', 'workers[0]'],
    ['offers-api', 'POST', '/offer', () => acme.apiKey, null, 'events[0]'],
  ])('%s %s %s: an element that is not an object is a 400 naming it', async (app, method, path, token, body, field) => {
    const raw = body ?? JSON.stringify({ ...offerBody(acme.user.id, [acme.workers[0].id]), events: [[]] });
    const result = await send({ app, method, path: path.replace('{org}', acme.organisation.id), token }, raw);
    expectProblem(result, 400);
    expect(Object.keys((result.json as { errors: Record<string, string[]> }).errors)).toContain(field);
  });

  it.each(['constructor', 'prototype', '__proto__'])('a property named %s anywhere in a body is a 400', async (name) => {
    const body = JSON.stringify(offerBody(acme.user.id, [acme.workers[0].id])).replace('"Warehouse pickers, night shift"', `{"${name}":"x"}`);
    const result = await send(STRING_FIELDS[0], body);
    expectProblem(result, 400);
    // `__proto__` is refused by the JSON parser itself (prototype poisoning); the others are named.
    if (name !== '__proto__') expect((result.json as { errors: Record<string, string[]> }).errors).toHaveProperty([`title.${name}`]);
    // At the top of the body too, where the field path is the bare name.
    const top = await send(STRING_FIELDS[0], `{"${name}":1}`);
    expectProblem(top, 400);
    expect(Object.keys((top.json as { errors: Record<string, string[]> }).errors)).toEqual([name]);
  });
});

describe('bounds come before validation', () => {
  it('POST /offer with 40,000 repeated worker ids is a 400 for the array size alone', async () => {
    const body = offerBody(acme.user.id, Array.from({ length: 40_000 }, () => 'w'));
    const result = await send(STRING_FIELDS[0], JSON.stringify(body));
    expectProblem(result, 400);
    expect((result.json as { errors: Record<string, string[]> }).errors).toEqual({ workerIds: [expect.stringContaining('10000')] });
  });
});

describe('a body over the limit', () => {
  it('gets its 413 problem on every one of 50 fetches, however far the upload had got', async () => {
    const body = 'x'.repeat(8 * 1024 * 1024);
    const outcomes: string[] = [];
    for (let i = 0; i < 50; i++) {
      try {
        const result = await send(STRING_FIELDS[0], body);
        outcomes.push(`${result.status} ${result.headers.get('content-type')}`);
      } catch (error) {
        outcomes.push(`${(error as Error).message}: ${String((error as { cause?: { code?: string } }).cause?.code)}`);
      }
    }
    expect(outcomes.filter((outcome) => !/^413 application\/problem\+json/.test(outcome))).toEqual([]);
  });

  it('is answered at once when it announces a body it never sends, rather than when the wait for the rest runs out', async () => {
    // The rest of a rejected upload is read before the answer; a client that sends nothing more must not wait for it.
    const headersOnly = `POST /offer HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n`;
    expectRawProblem(await rawExchange('offers-api', headersOnly, 5_000), 413);
  });

  it.each([
    [413, 'POST', '/offer', 16, 50],
    // Refused by the router before any hook runs: a path segment over its bound, a broken percent-escape.
    [414, 'PUT', `/worker/offers/${'x'.repeat(300)}/response`, 3, 20],
    [400, 'PUT', '/worker/offers/%E0%A4%A/response', 3, 20],
  ])('gets its %i problem for %s %s on every upload of %i MB from a client that asks to close the connection (%i times)', async (status, method, path, megabytes, times) => {
    // Node's own client without an agent sends `Connection: close`: the server closes once it has
    // answered, so any upload still unread then would reset the connection under the client.
    const url = new URL(platform.url('offers-api'));
    const body = Buffer.alloc(megabytes * 1024 * 1024, 'p');
    const upload = () =>
      new Promise<string>((resolve) => {
        const headers = { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json', 'content-length': String(body.length) };
        const req = httpRequest({ host: url.hostname, port: url.port, method, path, agent: false, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(`${res.statusCode} ${res.headers['content-type']}`));
        });
        req.on('error', (error: Error & { code?: string }) => resolve(`no answer: ${error.code}`));
        req.end(body);
      });
    const outcomes: string[] = [];
    for (let i = 0; i < times; i++) outcomes.push(await upload());
    expect(outcomes.filter((outcome) => !outcome.startsWith(`${status} application/problem+json`))).toEqual([]);
  });

  it('gets its 413 problem from a client that asks to close the connection and stalls mid-upload for seconds', async () => {
    // A phone on a weak network or a busy client process: the upload stops for a while, then goes on.
    // The answer must not be lost to a connection reset when it does.
    const url = new URL(platform.url('offers-api'));
    const part = Buffer.alloc(1024 * 1024, 'p');
    const outcome = await new Promise<string>((resolve) => {
      const headers = { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json', 'content-length': String(3 * part.length) };
      const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path: '/offer', agent: false, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(`${res.statusCode} ${res.headers['content-type']}`));
      });
      req.on('error', (error: Error & { code?: string }) => resolve(`no answer: ${error.code}`));
      req.write(part);
      setTimeout(() => req.end(Buffer.concat([part, part])), 2_500);
    });
    expect(outcome).toMatch(/^413 application\/problem\+json/);
  });
});

/** Writes raw bytes to a service and reads the whole answer (the server closes or the answer is complete). */
async function rawExchange(app: string, text: string, timeoutMs = 10_000): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(platform.url(app));
  const socket: Socket = connect(Number(url.port), url.hostname);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const received = Buffer.concat(chunks).toString('latin1');
      const match = /content-length: (\d+)/i.exec(received);
      const split = received.indexOf('\r\n\r\n');
      if (match && split >= 0 && received.length - split - 4 >= Number(match[1])) resolve();
    });
    socket.on('end', () => resolve());
    socket.on('close', () => resolve());
    socket.on('error', reject);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms`));
    });
  });
  socket.destroy();
  const received = Buffer.concat(chunks).toString('utf8');
  const split = received.indexOf('\r\n\r\n');
  return { status: Number(received.slice(9, 12)), headers: received.slice(0, split), body: received.slice(split + 4) };
}

function expectRawProblem(answer: { status: number; headers: string; body: string }, status: number) {
  expect({ status: answer.status, problem: /content-type: application\/problem\+json/i.test(answer.headers) }).toEqual({ status, problem: true });
  expect(JSON.parse(answer.body)).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
}

describe("errors Fastify and Node raise before our code runs are problem+json too", () => {
  const apps = ['offers-api', 'contact-directory', 'notification-service', 'webhook-dispatcher'];
  /** A route of each service with a path parameter (Fastify answers 414 past 200 characters). */
  const withParameter: Record<string, [string, string]> = {
    'offers-api': ['GET', '/offer/'],
    'contact-directory': ['DELETE', '/admin/api-keys/'],
    'notification-service': ['DELETE', '/worker/devices/'],
    'webhook-dispatcher': ['GET', '/admin/deliveries/'],
  };

  it.each(apps)('%s: unknown route 404, wrong method, malformed JSON, unsupported media type, path segment too long', async (app) => {
    const base = platform.url(app);
    expectProblem(await request(base, 'GET', '/no-such-route'), 404);
    expectProblem(await request(base, 'PATCH', '/health/live'), 404);
    // The body is read before the route is known to be missing: malformed JSON is said first.
    expectProblem(await request(base, 'POST', '/no-such-route', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } }), 400);
    const [method, prefix] = withParameter[app];
    expectProblem(await request(base, method, `${prefix}${'a'.repeat(300)}`), 414);
  });

  it('offers-api: malformed JSON 400, empty JSON 400, unsupported media type 415, proto poisoning 400', async () => {
    const call = STRING_FIELDS[0];
    expectProblem(await send(call, '{"title":'), 400);
    expectProblem(await send(call, ''), 400);
    expectProblem(await send(call, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    expectProblem(await send(call, 'x', { 'content-type': 'text/plain' }), 415);
    expectProblem(await send(call, '{"__proto__":{"x":1}}'), 400);
  });

  it.each(apps)('%s: headers too large 431, URL too long, bad and conflicting Content-Length 400, broken request line 400', async (app) => {
    expectRawProblem(await rawExchange(app, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`), 431);
    expectRawProblem(await rawExchange(app, `GET /health/live?${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431);
    expectRawProblem(await rawExchange(app, 'POST /offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}'), 400);
    expectRawProblem(
      await rawExchange(app, 'POST /offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'),
      400,
    );
    expectRawProblem(await rawExchange(app, 'GET /a b c\r\n\r\n'), 400);
    expectRawProblem(await rawExchange(app, 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n'), 400);
  });
});

describe('a client that stops sending mid-request', () => {
  it('gets a 408 problem once HTTP_REQUEST_TIMEOUT_MS has passed, instead of holding the request (and the process\'s shutdown) open', async () => {
    const answer = await rawExchange('offers-api', 'POST /offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}', 30_000);
    expectRawProblem(answer, 408);
  }, 60_000);
});

describe('api-version', () => {
  const get = (query: string) =>
    request(platform.url('offers-api'), 'GET', `/worker/offers${query}`, { headers: { authorization: `Bearer ${acme.workers[0].token}` } });

  it.each(['?API-VERSION=2.0', '?Api-Version=', '?api-version[]=1.0', '?api-version=1.0&api-version=1.0', '?api-version=1.0&API-VERSION=1.0'])(
    '%s is a 400 naming api-version',
    async (query) => {
      const result = await get(query);
      expectProblem(result, 400);
      expect((result.json as { errors: object }).errors).toHaveProperty(['api-version']);
    },
  );

  it.each(['', '?api-version=1.0', '?API-Version=1.0'])('%s is accepted', async (query) => {
    expect((await get(query)).status).toBe(200);
  });
});

describe('query parameters', () => {
  const dispatcher = (query: string) =>
    request(platform.url('webhook-dispatcher'), 'GET', `/admin/deliveries${query}`, { headers: { authorization: `Bearer ${DISPATCHER_ADMIN_TOKEN}` } });
  const worker = (app: string, path: string) => request(platform.url(app), 'GET', path, { headers: { authorization: `Bearer ${acme.workers[0].token}` } });

  it.each(['?before=1e308', '?before=9007199254740993', '?before=99999999999999999999', '?before=1.5', '?before=0x10', '?limit=1e2', '?limit=-1', '?before=', '?status=failed&status=dead', '?before=1&before=2', '?organisationId=a&organisationId=b'])(
    'webhook-dispatcher /admin/deliveries%s is a 400',
    async (query) => {
      expectProblem(await dispatcher(query), 400);
    },
  );

  it.each([
    ['offers-api', '/worker/offers?before=1e308'],
    ['offers-api', '/worker/offers?before=9999999999999999'],
    ['offers-api', '/worker/offers?limit=1&limit=2'],
    ['notification-service', '/worker/notifications?before=1e308'],
    ['notification-service', '/worker/notifications?before=9999999999999999'],
    ['notification-service', '/worker/notifications?limit=1&limit=1'],
  ])('%s %s is a 400', async (app, path) => {
    expectProblem(await worker(app, path), 400);
  });

  it('a valid cursor far past every row is an empty page, not an error', async () => {
    const result = await dispatcher('?before=9007199254740991');
    expect(result.status).toBe(200);
  });
});
