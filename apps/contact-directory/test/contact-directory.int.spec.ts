import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  CREDENTIAL_REVOKED_SUBJECT,
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOfferAudienceReply,
} from '@availability/contracts';
import {
  eventually,
  freePort,
  queryDatabase,
  ServiceProcess,
  startTestPlatform,
  type TestDatabase,
  type TestEventNamespace,
  type TestPlatform,
} from '@availability/testing';

const ADMIN_TOKEN = 'contact-directory-test-admin-token-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const API_KEY = /^apk_[A-Za-z0-9_-]{43}$/;
const WORKER_TOKEN = /^wkt_[A-Za-z0-9_-]{43}$/;

const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

interface Response<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  body: T;
}

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

interface CreatedOrganisation {
  id: string;
  name: string;
  kind: string;
  apiKey: { id: string; key: string };
}

interface CreatedWorker {
  id: string;
  name: string;
  email: string | null;
  token: string;
}

describe('contact-directory (running process, real Postgres and NATS)', () => {
  let database: TestDatabase;
  let events: TestEventNamespace;
  let service: ServiceProcess;
  let nats: NatsConnection;

  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform(['contact-directory'], { DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN });
    ({ database, events } = platform);
    service = platform.services['contact-directory'];
    nats = await platform.events.connect();
  });

  afterAll(async () => {
    await nats?.close();
    await platform?.stop();
  });

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` },
  ): Promise<Response<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${service.url}${path}`, init);
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: text ? JSON.parse(text) : undefined };
  }

  function expectProblem(response: Response, status: number, slug?: string): Problem {
    expect(response.status).toBe(status);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    const problem = response.body as unknown as Problem;
    expect(problem.status).toBe(status);
    if (slug) expect(problem.type).toBe(`https://availability.example/problems/${slug}`);
    return problem;
  }

  async function createOrganisation(name = 'Acme Staffing', kind = 'agency'): Promise<CreatedOrganisation> {
    const response = await call<CreatedOrganisation>('POST', '/admin/organisations', { name, kind });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function createWorkers(organisationId: string, workers: Array<{ name: string; email?: string }>): Promise<CreatedWorker[]> {
    const response = await call<{ workers: CreatedWorker[] }>('POST', `/admin/organisations/${organisationId}/workers/bulk`, { workers });
    expect(response.status).toBe(201);
    return response.body.workers;
  }

  /** One request exactly as other services send it: JSON on `<prefix><pattern>`, reply `{ ok, result }`. */
  async function ask<T>(pattern: string, request: unknown): Promise<T> {
    const message = await nats.request(`${events.prefix}${pattern}`, JSON.stringify(request), { timeout: 10_000 });
    const reply = message.json<{ ok: boolean; result?: T; error?: string }>();
    expect(reply).toEqual(expect.objectContaining({ ok: true }));
    return reply.result as T;
  }

  const verify = (token: string) => ask<CredentialVerdict>(DirectoryPattern.VerifyCredential, { tokenHash: sha256(token) });
  const resolve = (organisationId: unknown, userId: unknown, workerIds: unknown) =>
    ask<ResolveOfferAudienceReply>(DirectoryPattern.ResolveOfferAudience, { organisationId, userId, workerIds });

  describe('admin authentication', () => {
    it.each([
      ['no Authorization header', {}],
      ['a wrong token', { authorization: 'Bearer wrong-token' }],
      ['the token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
      ['the token as Basic', { authorization: `Basic ${ADMIN_TOKEN}` }],
      ['the token as X-Api-Key', { 'x-api-key': ADMIN_TOKEN }],
    ])('rejects %s with a 401 problem and creates nothing', async (_what, headers) => {
      const before = await queryDatabase<{ count: string }>(database.url, 'SELECT count(*) FROM directory.organisation');
      const response = await call('POST', '/admin/organisations', { name: 'Sneaky', kind: 'hirer' }, headers as Record<string, string>);
      expectProblem(response, 401, 'unauthorized');
      const after = await queryDatabase<{ count: string }>(database.url, 'SELECT count(*) FROM directory.organisation');
      expect(after[0].count).toBe(before[0].count);
    });

    it('guards every admin route', async () => {
      const id = randomUUID();
      const routes: Array<[string, string]> = [
        ['POST', `/admin/organisations/${id}/api-keys`],
        ['DELETE', `/admin/api-keys/${id}`],
        ['POST', `/admin/organisations/${id}/users`],
        ['POST', `/admin/organisations/${id}/workers`],
        ['POST', `/admin/organisations/${id}/workers/bulk`],
        ['PUT', `/admin/organisations/${id}/workers/${id}`],
        ['POST', `/admin/workers/${id}/tokens`],
        ['DELETE', `/admin/worker-tokens/${id}`],
      ];
      for (const [method, path] of routes) {
        expectProblem(await call(method, path, method === 'POST' ? {} : undefined, {}), 401, 'unauthorized');
      }
    });
  });

  describe('organisations and API keys', () => {
    it('creates an organisation with its first API key, storing only the key hash', async () => {
      const organisation = await createOrganisation('Acme Staffing', 'agency');
      expect(organisation).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Acme Staffing',
        kind: 'agency',
        apiKey: { id: expect.stringMatching(UUID), key: expect.stringMatching(API_KEY) },
      });
      const [row] = await queryDatabase(database.url, `SELECT * FROM directory.api_key WHERE id = $1`, [organisation.apiKey.id]);
      expect(row).toEqual(
        expect.objectContaining({
          organisation_id: organisation.id,
          key_hash: sha256(organisation.apiKey.key),
          key_prefix: organisation.apiKey.key.slice(0, 12),
          revoked_at: null,
        }),
      );
      expect(JSON.stringify(row)).not.toContain(organisation.apiKey.key);
      expect(service.logs()).not.toContain(organisation.apiKey.key);
    });

    it('accepts every organisation kind', async () => {
      for (const kind of ['hirer', 'agency', 'integrator']) expect((await createOrganisation(`Org ${kind}`, kind)).kind).toBe(kind);
    });

    it('issues further API keys, with or without a name', async () => {
      const organisation = await createOrganisation();
      const named = await call<{ id: string; key: string }>('POST', `/admin/organisations/${organisation.id}/api-keys`, { name: 'payroll' });
      expect(named.status).toBe(201);
      expect(named.body).toEqual({ id: expect.stringMatching(UUID), key: expect.stringMatching(API_KEY) });
      const unnamed = await call<{ id: string; key: string }>('POST', `/admin/organisations/${organisation.id}/api-keys`);
      expect(unnamed.status).toBe(201);
      expect(new Set([organisation.apiKey.key, named.body.key, unnamed.body.key]).size).toBe(3);
      const rows = await queryDatabase<{ name: string }>(database.url, `SELECT name FROM directory.api_key WHERE id = $1`, [named.body.id]);
      expect(rows[0].name).toBe('payroll');
    });

    it('answers field errors with a 400 problem', async () => {
      const problem = expectProblem(await call('POST', '/admin/organisations', { name: '  ', kind: 'shop' }), 400, 'validation-failed');
      expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['kind', 'name']);
      expect(problem.errors?.kind.join()).toMatch(/hirer, agency, integrator/);

      const missing = expectProblem(await call('POST', '/admin/organisations', {}), 400, 'validation-failed');
      expect(Object.keys(missing.errors ?? {}).sort()).toEqual(['kind', 'name']);

      const tooLong = expectProblem(await call('POST', '/admin/organisations', { name: 'x'.repeat(201), kind: 'hirer' }), 400);
      expect(Object.keys(tooLong.errors ?? {})).toEqual(['name']);

      expectProblem(await call('POST', '/admin/organisations', '{"name": '), 400, 'malformed-json');
      expectProblem(await call('POST', '/admin/organisations', ['Acme', 'agency']), 400, 'validation-failed');

      const organisation = await createOrganisation();
      const keyName = expectProblem(await call('POST', `/admin/organisations/${organisation.id}/api-keys`, { name: 'k'.repeat(101) }), 400);
      expect(Object.keys(keyName.errors ?? {})).toEqual(['name']);
    });
  });

  describe('portal users', () => {
    it('adds users (member by default) and refuses a second user with the same e-mail in one organisation', async () => {
      const organisation = await createOrganisation();
      const created = await call('POST', `/admin/organisations/${organisation.id}/users`, { email: 'Sam@Acme.example', name: 'Sam' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(UUID),
        organisationId: organisation.id,
        email: 'Sam@Acme.example',
        name: 'Sam',
        role: 'member',
      });
      const admin = await call('POST', `/admin/organisations/${organisation.id}/users`, { email: 'kim@acme.example', name: 'Kim', role: 'admin' });
      expect(admin.status).toBe(201);
      expect(admin.body.role).toBe('admin');

      const duplicate = await call('POST', `/admin/organisations/${organisation.id}/users`, { email: 'sam@ACME.example', name: 'Sam again' });
      expectProblem(duplicate, 409, 'user-exists');
      const rows = await queryDatabase(database.url, `SELECT id FROM directory.portal_user WHERE organisation_id = $1`, [organisation.id]);
      expect(rows).toHaveLength(2);

      const other = await createOrganisation('Other Org', 'hirer');
      expect((await call('POST', `/admin/organisations/${other.id}/users`, { email: 'sam@acme.example', name: 'Sam' })).status).toBe(201);
    });

    it('validates the user', async () => {
      const organisation = await createOrganisation();
      const problem = expectProblem(
        await call('POST', `/admin/organisations/${organisation.id}/users`, { email: 'not-an-address', name: '', role: 'owner' }),
        400,
        'validation-failed',
      );
      expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['email', 'name', 'role']);
    });
  });

  describe('workers', () => {
    it('creates a worker linked to the organisation, with a worker token', async () => {
      const organisation = await createOrganisation();
      const response = await call<CreatedWorker>('POST', `/admin/organisations/${organisation.id}/workers`, {
        name: 'Alex Worker',
        email: 'alex@example.com',
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Alex Worker',
        email: 'alex@example.com',
        token: expect.stringMatching(WORKER_TOKEN),
      });
      const links = await queryDatabase(database.url, `SELECT organisation_id FROM directory.organisation_worker WHERE worker_id = $1`, [
        response.body.id,
      ]);
      expect(links).toEqual([{ organisation_id: organisation.id }]);
      const tokens = await queryDatabase(database.url, `SELECT token_hash FROM directory.worker_token WHERE worker_id = $1`, [response.body.id]);
      expect(tokens).toEqual([{ token_hash: sha256(response.body.token) }]);

      const withoutEmail = await call<CreatedWorker>('POST', `/admin/organisations/${organisation.id}/workers`, { name: 'No Mail' });
      expect(withoutEmail.status).toBe(201);
      expect(withoutEmail.body.email).toBeNull();
    });

    it('creates workers in bulk, each with its own token', async () => {
      const organisation = await createOrganisation();
      const workers = await createWorkers(organisation.id, [{ name: 'A' }, { name: 'B', email: 'b@example.com' }, { name: 'C' }]);
      expect(workers.map((w) => [w.name, w.email])).toEqual([
        ['A', null],
        ['B', 'b@example.com'],
        ['C', null],
      ]);
      expect(new Set(workers.map((w) => w.token)).size).toBe(3);
      for (const worker of workers) {
        expect(worker.token).toMatch(WORKER_TOKEN);
        expect(await verify(worker.token)).toEqual({ kind: 'worker', workerId: worker.id });
      }
    });

    // Checked for what it makes, not timed: a test's clock measures the machine's hour (a busy one took 6.5 s).
    it('creates 10,000 workers in one request, and resolves them all in one request', async () => {
      const organisation = await createOrganisation('Big Agency', 'agency');
      const input = Array.from({ length: 10_000 }, (_, i) => ({ name: `Worker ${i + 1}`, email: `worker${i + 1}@big.example` }));
      const workers = await createWorkers(organisation.id, input);
      expect(workers).toHaveLength(10_000);
      expect(new Set(workers.map((w) => w.id)).size).toBe(10_000);
      expect(new Set(workers.map((w) => w.token)).size).toBe(10_000);
      expect(workers[9_999]).toEqual(expect.objectContaining({ name: 'Worker 10000', email: 'worker10000@big.example' }));
      const [{ count }] = await queryDatabase<{ count: string }>(
        database.url,
        `SELECT count(*) FROM directory.organisation_worker ow JOIN directory.worker_token t ON t.worker_id = ow.worker_id
         WHERE ow.organisation_id = $1`,
        [organisation.id],
      );
      expect(Number(count)).toBe(10_000);

      const user = await call('POST', `/admin/organisations/${organisation.id}/users`, { email: 'ops@big.example', name: 'Ops' });
      const stranger = randomUUID();
      const ids = [...workers.map((w) => w.id), stranger];
      const reply = await resolve(organisation.id, user.body.id, ids);
      expect(reply.userKnown).toBe(true);
      expect(reply.workers).toHaveLength(10_000);
      expect(reply.workers[0]).toEqual({ workerId: workers[0].id, name: 'Worker 1' });
      expect(reply.workers[9_999]).toEqual({ workerId: workers[9_999].id, name: 'Worker 10000' });
      expect(reply.unknownWorkerIds).toEqual([stranger]);
    });

    it('validates bulk requests: 1 to 10,000 workers, each checked', async () => {
      const organisation = await createOrganisation();
      const path = `/admin/organisations/${organisation.id}/workers/bulk`;
      const empty = expectProblem(await call('POST', path, { workers: [] }), 400, 'validation-failed');
      expect(Object.keys(empty.errors ?? {})).toEqual(['workers']);
      const notArray = expectProblem(await call('POST', path, { workers: 'Ann' }), 400, 'validation-failed');
      expect(Object.keys(notArray.errors ?? {})).toContain('workers');
      const tooMany = expectProblem(await call('POST', path, { workers: Array.from({ length: 10_001 }, () => ({ name: 'W' })) }), 400);
      expect(tooMany.errors?.workers.join()).toMatch(/10000/);
      const fields = expectProblem(await call('POST', path, { workers: [{ name: 'Ok' }, { name: '' }, { name: 'Bad', email: 'nope' }] }), 400);
      expect(Object.keys(fields.errors ?? {}).sort()).toEqual(['workers[1].name', 'workers[2].email']);
      const rows = await queryDatabase(database.url, `SELECT 1 FROM directory.organisation_worker WHERE organisation_id = $1`, [organisation.id]);
      expect(rows).toHaveLength(0);
      const single = expectProblem(await call('POST', `/admin/organisations/${organisation.id}/workers`, { email: 'x@example.com' }), 400);
      expect(Object.keys(single.errors ?? {})).toEqual(['name']);
    });

    it('links an existing worker to another organisation, idempotently', async () => {
      const first = await createOrganisation('First', 'agency');
      const second = await createOrganisation('Second', 'hirer');
      const [worker] = await createWorkers(first.id, [{ name: 'Shared Worker' }]);
      expect((await call('PUT', `/admin/organisations/${second.id}/workers/${worker.id}`)).status).toBe(204);
      expect((await call('PUT', `/admin/organisations/${second.id}/workers/${worker.id}`)).status).toBe(204);
      expect((await call('PUT', `/admin/organisations/${first.id}/workers/${worker.id}`)).status).toBe(204);
      const links = await queryDatabase<{ organisation_id: string }>(
        database.url,
        `SELECT organisation_id FROM directory.organisation_worker WHERE worker_id = $1 ORDER BY created_at`,
        [worker.id],
      );
      expect(links.map((l) => l.organisation_id)).toEqual([first.id, second.id]);
    });
  });

  describe('unknown ids', () => {
    it.each([
      ['POST', () => `/admin/organisations/${randomUUID()}/api-keys`, {}],
      ['POST', () => '/admin/organisations/not-a-uuid/api-keys', {}],
      ['POST', () => `/admin/organisations/${randomUUID()}/users`, { email: 'a@example.com', name: 'A' }],
      ['POST', () => "/admin/organisations/1'%20OR%20'1'='1/users", { email: 'a@example.com', name: 'A' }],
      ['POST', () => `/admin/organisations/${randomUUID()}/workers`, { name: 'A' }],
      ['POST', () => '/admin/organisations/42/workers', { name: 'A' }],
      ['POST', () => `/admin/organisations/${randomUUID()}/workers/bulk`, { workers: [{ name: 'A' }] }],
      ['POST', () => '/admin/organisations/x/workers/bulk', { workers: [{ name: 'A' }] }],
      ['PUT', () => `/admin/organisations/${randomUUID()}/workers/${randomUUID()}`, undefined],
      ['PUT', () => '/admin/organisations/x/workers/y', undefined],
      ['POST', () => `/admin/workers/${randomUUID()}/tokens`, undefined],
      ['POST', () => '/admin/workers/not-a-worker/tokens', undefined],
      ['DELETE', () => `/admin/api-keys/${randomUUID()}`, undefined],
      ['DELETE', () => '/admin/api-keys/apk_abc', undefined],
      ['DELETE', () => `/admin/worker-tokens/${randomUUID()}`, undefined],
      ['DELETE', () => '/admin/worker-tokens/wkt_abc', undefined],
    ])('%s %s is a 404 problem', async (method, path, body) => {
      expectProblem(await call(method, path(), body), 404, 'not-found');
    });

    it('says which of organisation and worker is unknown when linking', async () => {
      const organisation = await createOrganisation();
      const [worker] = await createWorkers(organisation.id, [{ name: 'W' }]);
      const noWorker = expectProblem(await call('PUT', `/admin/organisations/${organisation.id}/workers/${randomUUID()}`), 404);
      expect(noWorker.detail).toMatch(/worker/i);
      const noOrganisation = expectProblem(await call('PUT', `/admin/organisations/${randomUUID()}/workers/${worker.id}`), 404);
      expect(noOrganisation.detail).toMatch(/organisation/i);
    });
  });

  describe('VerifyCredential over NATS', () => {
    it('knows organisation API keys and worker tokens, and nothing else', async () => {
      const organisation = await createOrganisation();
      expect(await verify(organisation.apiKey.key)).toEqual({
        kind: 'organisation',
        organisationId: organisation.id,
        apiKeyId: organisation.apiKey.id,
      });
      const second = await call<{ id: string; key: string }>('POST', `/admin/organisations/${organisation.id}/api-keys`, { name: 'second' });
      expect(await verify(second.body.key)).toEqual({ kind: 'organisation', organisationId: organisation.id, apiKeyId: second.body.id });

      const [worker] = await createWorkers(organisation.id, [{ name: 'W' }]);
      expect(await verify(worker.token)).toEqual({ kind: 'worker', workerId: worker.id });
      const extra = await call<{ id: string; token: string }>('POST', `/admin/workers/${worker.id}/tokens`);
      expect(extra.status).toBe(201);
      expect(extra.body).toEqual({ id: expect.stringMatching(UUID), token: expect.stringMatching(WORKER_TOKEN) });
      expect(await verify(extra.body.token)).toEqual({ kind: 'worker', workerId: worker.id });

      expect(await verify(`apk_${'A'.repeat(43)}`)).toEqual({ kind: 'none' });
      expect(await verify(organisation.apiKey.key.slice(0, -1))).toEqual({ kind: 'none' });
      expect(await verify(ADMIN_TOKEN)).toEqual({ kind: 'none' });
    });

    it('answers malformed requests with none, never an error', async () => {
      const organisation = await createOrganisation();
      for (const request of [{}, { tokenHash: 'abc' }, { tokenHash: 42 }, { tokenHash: sha256(organisation.apiKey.key).toUpperCase() }, null, 'x']) {
        expect(await ask(DirectoryPattern.VerifyCredential, request)).toEqual({ kind: 'none' });
      }
    });

    it('forgets a revoked API key at once and broadcasts the revocation', async () => {
      const organisation = await createOrganisation();
      const spare = await call<{ id: string; key: string }>('POST', `/admin/organisations/${organisation.id}/api-keys`, {});
      const received: string[] = [];
      const subscription = nats.subscribe(`${events.prefix}${CREDENTIAL_REVOKED_SUBJECT}`, {
        callback: (_error, message) => {
          received.push(message.json<{ tokenHash: string }>().tokenHash);
        },
      });
      await nats.flush();
      try {
        expect((await call('DELETE', `/admin/api-keys/${organisation.apiKey.id}`)).status).toBe(204);
        expect(await verify(organisation.apiKey.key)).toEqual({ kind: 'none' });
        await eventually(() => received.includes(sha256(organisation.apiKey.key)), 5_000, 'revocation broadcast');
        expect(await verify(spare.body.key)).toEqual({ kind: 'organisation', organisationId: organisation.id, apiKeyId: spare.body.id });

        // Revoking again is harmless: still 204, still revoked.
        expect((await call('DELETE', `/admin/api-keys/${organisation.apiKey.id}`)).status).toBe(204);
        expect(await verify(organisation.apiKey.key)).toEqual({ kind: 'none' });
        const [row] = await queryDatabase<{ revoked_at: Date | null }>(database.url, `SELECT revoked_at FROM directory.api_key WHERE id = $1`, [
          organisation.apiKey.id,
        ]);
        expect(row.revoked_at).toBeInstanceOf(Date);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('forgets a revoked worker token at once and broadcasts the revocation', async () => {
      const organisation = await createOrganisation();
      const [worker] = await createWorkers(organisation.id, [{ name: 'W' }]);
      const issued = await call<{ id: string; token: string }>('POST', `/admin/workers/${worker.id}/tokens`);
      const received: string[] = [];
      const subscription = nats.subscribe(`${events.prefix}${CREDENTIAL_REVOKED_SUBJECT}`, {
        callback: (_error, message) => {
          received.push(message.json<{ tokenHash: string }>().tokenHash);
        },
      });
      await nats.flush();
      try {
        expect((await call('DELETE', `/admin/worker-tokens/${issued.body.id}`)).status).toBe(204);
        expect(await verify(issued.body.token)).toEqual({ kind: 'none' });
        await eventually(() => received.includes(sha256(issued.body.token)), 5_000, 'revocation broadcast');
        expect(await verify(worker.token)).toEqual({ kind: 'worker', workerId: worker.id });
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  describe('ResolveOfferAudience over NATS', () => {
    it('names only workers of the asking organisation (tenant isolation) and knows its users', async () => {
      const a = await createOrganisation('Agency A', 'agency');
      const b = await createOrganisation('Hirer B', 'hirer');
      const userA = (await call('POST', `/admin/organisations/${a.id}/users`, { email: 'ann@a.example', name: 'Ann' })).body.id as string;
      const userB = (await call('POST', `/admin/organisations/${b.id}/users`, { email: 'bob@b.example', name: 'Bob' })).body.id as string;
      const [a1, a2] = await createWorkers(a.id, [{ name: 'A One' }, { name: 'A Two' }]);
      const [b1] = await createWorkers(b.id, [{ name: 'B One' }]);
      const stranger = randomUUID();

      expect(await resolve(a.id, userA, [a1.id, b1.id, 'not-a-uuid', stranger, a2.id])).toEqual({
        userKnown: true,
        workers: [
          { workerId: a1.id, name: 'A One' },
          { workerId: a2.id, name: 'A Two' },
        ],
        unknownWorkerIds: [b1.id, 'not-a-uuid', stranger],
      });
      expect(await resolve(b.id, userA, [a1.id, b1.id])).toEqual({
        userKnown: false,
        workers: [{ workerId: b1.id, name: 'B One' }],
        unknownWorkerIds: [a1.id],
      });
      expect((await resolve(b.id, userB, [])).userKnown).toBe(true);
      expect((await resolve(a.id, randomUUID(), [a1.id])).userKnown).toBe(false);
      expect((await resolve(a.id, 'user-1', [a1.id])).userKnown).toBe(false);

      // Once linked to B, the worker is B's too (and still A's).
      expect((await call('PUT', `/admin/organisations/${b.id}/workers/${a1.id}`)).status).toBe(204);
      expect((await resolve(b.id, userB, [a1.id])).workers).toEqual([{ workerId: a1.id, name: 'A One' }]);
      expect((await resolve(a.id, userA, [a1.id])).workers).toEqual([{ workerId: a1.id, name: 'A One' }]);
    });

    it('answers malformed requests without failing', async () => {
      const a = await createOrganisation();
      const [worker] = await createWorkers(a.id, [{ name: 'W' }]);
      expect(await resolve('not-an-org', 'x', [worker.id])).toEqual({ userKnown: false, workers: [], unknownWorkerIds: [worker.id] });
      expect(await resolve(a.id, null, 'not-an-array')).toEqual({ userKnown: false, workers: [], unknownWorkerIds: [] });
      expect(await resolve(a.id, 7, [worker.id.toUpperCase(), 12, null, "'; DROP TABLE directory.worker; --"])).toEqual({
        userKnown: false,
        workers: [],
        unknownWorkerIds: [worker.id.toUpperCase(), '12', 'null', "'; DROP TABLE directory.worker; --"],
      });
      expect(await ask(DirectoryPattern.ResolveOfferAudience, null)).toEqual({ userKnown: false, workers: [], unknownWorkerIds: [] });
      expect((await resolve(a.id, null, [worker.id])).workers).toEqual([{ workerId: worker.id, name: 'W' }]);
    });
  });

  describe('operations', () => {
    it('reports database and NATS health, and publishes its OpenAPI document', async () => {
      const health = await fetch(`${service.url}/health`);
      expect(health.status).toBe(200);
      const body = (await health.json()) as { info: Record<string, { status: string }> };
      expect(body.info.database.status).toBe('up');
      expect(body.info.nats.status).toBe('up');
      const openApi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(openApi.paths)).toEqual(
        expect.arrayContaining(['/admin/organisations', '/admin/organisations/{organisationId}/workers/bulk', '/admin/worker-tokens/{tokenId}']),
      );
    });

    it('never logs credentials', () => {
      expect(service.logs()).not.toMatch(/apk_[A-Za-z0-9_-]{20}|wkt_[A-Za-z0-9_-]{20}/);
      expect(service.logs()).not.toContain(ADMIN_TOKEN);
    });

    it('refuses to start in production with a short admin token, without printing it', async () => {
      const start = ServiceProcess.start({
        app: 'contact-directory',
        port: await freePort(),
        env: { ...events.env, DATABASE_URL: database.url, NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: 'short-but-secret' },
      });
      const failure = await start.then(
        async (started) => {
          await started.stop();
          return new Error('started');
        },
        (error: Error) => error,
      );
      expect(failure.message).toMatch(/exited with 78[\s\S]*DIRECTORY_ADMIN_TOKEN: must be at least 32 characters/);
      expect(failure.message).not.toContain('short-but-secret');
    });
  });
});
