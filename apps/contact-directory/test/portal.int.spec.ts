import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOrganisationContactsReply,
  type ResolveWebhookTargetReply,
  WEBHOOK_TARGET_CHANGED_SUBJECT,
  type WebhookTarget,
} from '@availability/contracts';
import { openWebhookTarget, SealedBox } from '@availability/messaging';
import {
  createTestDatabase,
  createTestEventNamespace,
  eventually,
  freePort,
  queryDatabase,
  ServiceProcess,
  type TestDatabase,
  type TestEventNamespace,
} from '@availability/testing';
import { verifyRequest } from '@availability/webhook-signing';

const ADMIN_TOKEN = 'contact-directory-portal-test-admin-token-0123';
const GRACE_SECONDS = 3;
const SUGGESTIONS_TIMEOUT_MS = 600;
const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

interface Response<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  text: string;
  body: T;
}

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

interface Profile {
  organisationId: string;
  baseUrl: string | null;
  secretSet: boolean;
  savedAt: string | null;
  suggestionsEnabled: boolean;
  suggestionsAllowed: boolean;
  rotation: { previousSecretActive: boolean; previousSecretExpiresAt: string | null };
  signatureSchemes: string[];
  verificationWarning: string | null;
}

interface StubRequest {
  mode: string;
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  verified: boolean;
}

/**
 * One loopback HTTP server standing in for many integrators: the first path segment picks the
 * behaviour (`/<mode>/test`, `/<mode>/test/auth`, `/<mode>/contact-suggestions`). Signed calls are
 * verified with libs/webhook-signing against the secret registered for the mode.
 */
class IntegratorStub {
  readonly requests: StubRequest[] = [];
  readonly secrets = new Map<string, string>();
  readonly replies = new Map<string, unknown>();
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => this.handle(req, body, res));
    });
    this.server.listen(0, 'localhost');
    await once(this.server, 'listening');
    this.base = `http://localhost:${(this.server.address() as { port: number }).port}`;
  }

  url(mode: string): string {
    return `${this.base}/${mode}`;
  }

  of(mode: string, path?: string): StubRequest[] {
    return this.requests.filter((r) => r.mode === mode && (path === undefined || r.path === path));
  }

  private handle(req: IncomingMessage, body: string, res: ServerResponse): void {
    const [, mode, ...rest] = (req.url ?? '/').split('/');
    const path = `/${rest.join('/')}`;
    const secret = this.secrets.get(mode);
    const verified = secret !== undefined && verifyRequest({ request: req, body, secret }).ok;
    this.requests.push({ mode, path, method: req.method ?? '', headers: req.headers, body, verified });
    const kind = mode.replace(/-.*$/, '');
    const send = (status: number, payload?: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload));
    if (kind === 'test500' && path === '/test') return send(500);
    if (kind === 'auth401' && path === '/test/auth') return send(401);
    if (kind === 'lax' && path === '/test/auth') return send(200);
    if (kind === 'redirect') return void res.writeHead(302, { location: `${this.base}/good/test` }).end();
    if (kind === 'slow' && path === '/test') return void setTimeout(() => send(200), 4_000);
    if (path === '/test') return send(200);
    if (path === '/test/auth') return send(verified ? 200 : 401);
    if (path === '/contact-suggestions') {
      if (!verified) return send(401);
      if (kind === 'slowsuggest') return void setTimeout(() => send(200, this.replies.get(mode) ?? []), 3_000);
      return send(200, this.replies.get(mode) ?? []);
    }
    send(404);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
  }
}

describe('contact-directory portal: company profile, suggestions, invitations, contacts', () => {
  let database: TestDatabase;
  let events: TestEventNamespace;
  let service: ServiceProcess;
  let nats: NatsConnection;
  const stub = new IntegratorStub();
  const secretsUsed: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    events = await createTestEventNamespace();
    await stub.start();
    service = await ServiceProcess.start({
      app: 'contact-directory',
      port: await freePort(),
      env: {
        ...events.env,
        DATABASE_URL: database.url,
        DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN,
        WEBHOOK_SECRET_GRACE_SECONDS: String(GRACE_SECONDS),
        WEBHOOK_TEST_TIMEOUT_MS: '1000',
        SUGGESTIONS_TIMEOUT_MS: String(SUGGESTIONS_TIMEOUT_MS),
        // The suite invites hundreds of people for one organisation (invitation-limits.int.spec.ts tests the limit).
        INVITATIONS_PER_ORGANISATION_PER_DAY: '10000',
        LOG_LEVEL: 'info',
      },
    });
    nats = await events.connect();
  });

  afterAll(async () => {
    await nats?.close();
    await service?.stop();
    await stub.stop();
    await database?.drop();
    await events?.dispose();
  });

  async function call<T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown, url = service.url): Promise<Response<T>> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${token}` } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${url}${path}`, init);
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, body: text ? JSON.parse(text) : undefined };
  }
  const admin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => call<T>(method, path, ADMIN_TOKEN, body);

  function expectProblem(response: Response<unknown>, status: number): Problem {
    expect(response.status).toBe(status);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    return response.body as unknown as Problem;
  }

  async function ask<T>(pattern: string, request: unknown): Promise<T> {
    const message = await nats.request(`${events.prefix}${pattern}`, JSON.stringify(request), { timeout: 10_000 });
    const reply = message.json<{ ok: boolean; result?: T }>();
    expect(reply.ok).toBe(true);
    return reply.result as T;
  }
  /** The target as the dispatcher sees it: the reply opened with the dispatcher's key (the secrets are sealed on the bus). */
  async function target(organisationId: string): Promise<WebhookTarget> {
    const reply = await ask<ResolveWebhookTargetReply>(DirectoryPattern.ResolveWebhookTarget, { organisationId });
    const { directory, dispatcher } = events.credentials.sealing;
    return openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, organisationId, reply);
  }

  interface Org {
    id: string;
    name: string;
    admin: { id: string; email: string; token: string; tokenId: string };
    member: { id: string; email: string; token: string };
  }

  async function organisation(name: string, kind = 'hirer'): Promise<Org> {
    const created = await admin<{ id: string }>('POST', '/admin/organisations', { name, kind });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const slug = randomUUID().slice(0, 8);
    const user = async (role: string) => {
      const email = `${role}-${slug}@${name.toLowerCase().replace(/\W+/g, '')}.example`;
      const made = await admin<{ id: string }>('POST', `/admin/organisations/${id}/users`, { email, name: `${name} ${role}`, role });
      expect(made.status).toBe(201);
      const token = await admin<{ id: string; token: string }>('POST', `/admin/users/${made.body.id}/tokens`);
      expect(token.status).toBe(201);
      expect(token.body.token).toMatch(/^put_[A-Za-z0-9_-]{43}$/);
      return { id: made.body.id, email, token: token.body.token, tokenId: token.body.id };
    };
    return { id, name, admin: await user('admin'), member: await user('member') };
  }

  const newSecret = () => {
    const secret = `whsec-${randomUUID()}`;
    secretsUsed.push(secret);
    return secret;
  };

  async function setUp(org: Org, mode: string, secret = newSecret()): Promise<Response<Profile>> {
    stub.secrets.set(mode, secret);
    return call<Profile>('PUT', '/portal/company-profile/webhook', org.admin.token, { baseUrl: stub.url(mode), secret });
  }

  describe('portal user tokens', () => {
    it('verifies as the user, with organisation and role, until revoked (broadcast)', async () => {
      const org = await organisation('Token Org');
      expect(await ask<CredentialVerdict>(DirectoryPattern.VerifyCredential, { tokenHash: sha256(org.admin.token) })).toEqual({
        kind: 'user',
        userId: org.admin.id,
        organisationId: org.id,
        role: 'admin',
      });
      expect((await ask<CredentialVerdict>(DirectoryPattern.VerifyCredential, { tokenHash: sha256(org.member.token) })).kind).toBe('user');
      expect((await call('GET', '/portal/company-profile', org.admin.token)).status).toBe(200);

      const revoked: string[] = [];
      const subscription = nats.subscribe(`${events.prefix}directory.credentials.revoked`, {
        callback: (_error, message) => void revoked.push(message.json<{ tokenHash: string }>().tokenHash),
      });
      await nats.flush();
      try {
        expect((await admin('DELETE', `/admin/user-tokens/${org.admin.tokenId}`)).status).toBe(204);
        await eventually(() => revoked.includes(sha256(org.admin.token)), 5_000, 'revocation broadcast');
        expect(await ask(DirectoryPattern.VerifyCredential, { tokenHash: sha256(org.admin.token) })).toEqual({ kind: 'none' });
        // The service's own verdict cache forgot it too.
        expectProblem(await call('GET', '/portal/company-profile', org.admin.token), 401);
      } finally {
        subscription.unsubscribe();
      }
      expectProblem(await admin('POST', `/admin/users/${randomUUID()}/tokens`), 404);
      expectProblem(await admin('DELETE', `/admin/user-tokens/${randomUUID()}`), 404);
      expectProblem(await call('POST', `/admin/users/${org.member.id}/tokens`, 'wrong'), 401);
    });

    it('guards every portal route, and refuses worker tokens and API keys there', async () => {
      const org = await organisation('Guard Org');
      const worker = await admin<{ token: string }>('POST', `/admin/organisations/${org.id}/workers`, { name: 'W' });
      const apiKey = (await admin<{ key: string }>('POST', `/admin/organisations/${org.id}/api-keys`)).body.key;
      const routes: Array<[string, string]> = [
        ['GET', '/portal/company-profile'],
        ['PUT', '/portal/company-profile/webhook'],
        ['DELETE', '/portal/company-profile/webhook'],
        ['PUT', '/portal/company-profile/suggestions'],
        ['GET', '/portal/suggestion-providers'],
        ['POST', '/portal/contact-suggestions/search'],
        ['POST', '/portal/invitations'],
      ];
      for (const [method, path] of routes) {
        for (const token of ['nope', worker.body.token, apiKey]) expectProblem(await call(method, path, token, method === 'GET' || method === 'DELETE' ? undefined : {}), 401);
      }
      expectProblem(await call('GET', '/worker/contacts', org.member.token), 401);
    });
  });

  describe('company profile: webhook set-up', () => {
    it('saves URL and secret after /test and a correctly signed /test/auth, never showing or storing the secret in clear', async () => {
      const org = await organisation('Integrator One', 'integrator');
      const changed: string[] = [];
      const subscription = nats.subscribe(`${events.prefix}${WEBHOOK_TARGET_CHANGED_SUBJECT}`, {
        callback: (_error, message) => void changed.push(message.json<{ organisationId: string }>().organisationId),
      });
      await nats.flush();
      const secret = newSecret();
      let saved: Response<Profile>;
      try {
        saved = await setUp(org, 'good-one', secret);
        expect(saved.status).toBe(200);
        expect(saved.body).toEqual({
          organisationId: org.id,
          baseUrl: stub.url('good-one'),
          secretSet: true,
          savedAt: expect.any(String),
          suggestionsEnabled: false,
          suggestionsAllowed: true,
          rotation: { previousSecretActive: false, previousSecretExpiresAt: null },
          signatureSchemes: ['hmac', 'v1'],
          verificationWarning: null,
        });
        expect(saved.text).not.toContain(secret);
        await eventually(() => changed.includes(org.id), 5_000, 'webhook-target broadcast');
      } finally {
        subscription.unsubscribe();
      }

      const [test, auth] = [stub.of('good-one', '/test'), stub.of('good-one', '/test/auth')];
      expect(test).toHaveLength(1);
      expect(test[0].headers.authorization).toBeUndefined();
      // The signed call, then one signed with a wrong secret and one with a stale timestamp (spec 5.3), both refused.
      expect(auth.map((request) => request.verified)).toEqual([true, false, false]);
      expect(auth[2].headers.timestamp).not.toBe(auth[0].headers.timestamp);
      expect(auth[0].headers.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(auth[0].headers.authorization).toMatch(/^hmac [0-9a-f]{64}$/);
      expect(auth[0].headers['webhook-signature']).toMatch(/^v1,/);

      const profile = await call<Profile>('GET', '/portal/company-profile', org.member.token);
      expect(profile.body).toEqual(saved.body);
      expect(profile.text).not.toContain(secret);

      const rows = await queryDatabase(database.url, 'SELECT * FROM directory.company_profile WHERE organisation_id = $1', [org.id]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(JSON.stringify(rows)).not.toContain(Buffer.from(secret).toString('base64'));

      expect(await target(org.id)).toEqual({ baseUrl: stub.url('good-one'), secrets: [secret], signatureSchemes: ['hmac', 'v1'] });
      expect(await target(org.id.toUpperCase())).toEqual({ baseUrl: stub.url('good-one'), secrets: [secret], signatureSchemes: ['hmac', 'v1'] });
    });

    it.each([
      ['/test answers 500', 'test500', /GET \/test answered HTTP 500/],
      ['/test/auth answers 401', 'auth401', /GET \/test\/auth answered HTTP 401/],
      ['/test times out', 'slow', /GET \/test failed: no answer within 1000 ms \(timeout\)/],
      ['/test redirects', 'redirect', /GET \/test answered 302.*redirects are not followed/],
    ])('saves nothing when %s, and says which call failed and why', async (_what, mode, message) => {
      const org = await organisation(`Failing ${mode}`, 'integrator');
      const first = newSecret();
      expect((await setUp(org, `good-${mode}`, first)).status).toBe(200);
      const before = await queryDatabase(database.url, 'SELECT * FROM directory.company_profile WHERE organisation_id = $1', [org.id]);

      const problem = expectProblem(await setUp(org, mode), 422);
      expect(problem.detail).toMatch(message);
      expect(problem.detail).toMatch(/not saved/);
      expect(problem.errors?.baseUrl?.[0]).toMatch(message);

      const after = await queryDatabase(database.url, 'SELECT * FROM directory.company_profile WHERE organisation_id = $1', [org.id]);
      expect(after).toEqual(before);
      expect(await target(org.id)).toEqual({ baseUrl: stub.url(`good-${mode}`), secrets: [first], signatureSchemes: ['hmac', 'v1'] });
    });

    it('saves, outside production, an endpoint that accepts forged and stale calls with a warning kept until a check passes', async () => {
      const org = await organisation('Lax Org', 'integrator');
      const saved = await setUp(org, 'lax-one');
      expect(saved.status).toBe(200);
      expect(saved.body.verificationWarning).toMatch(/^Your endpoint accepted a GET \/test\/auth signed with the wrong secret: it must answer 401 unless the signature verifies/);
      expect(saved.body.verificationWarning).toMatch(/Timestamp was 15 minutes old/);
      const profile = await call<Profile>('GET', '/portal/company-profile', org.member.token);
      expect(profile.body.verificationWarning).toBe(saved.body.verificationWarning);

      expect((await setUp(org, 'good-after-lax')).body.verificationWarning).toBeNull();
      expect((await call<Profile>('GET', '/portal/company-profile', org.member.token)).body.verificationWarning).toBeNull();
    });

    it('reports a connection that cannot be made and an unresolvable host', async () => {
      const org = await organisation('Refused Org', 'integrator');
      const port = await freePort();
      const secret = newSecret();
      const refused = expectProblem(await call('PUT', '/portal/company-profile/webhook', org.admin.token, { baseUrl: `http://localhost:${port}/x`, secret }), 422);
      expect(refused.detail).toMatch(/GET \/test failed: could not connect, or the connection ended without a valid HTTP answer/);
      const dns = expectProblem(
        await call('PUT', '/portal/company-profile/webhook', org.admin.token, { baseUrl: 'http://no-such-host.invalid/x', secret }),
        422,
      );
      expect(dns.detail).toMatch(/GET \/test failed: .*DNS/);
      expect((await call<Profile>('GET', '/portal/company-profile', org.admin.token)).body.baseUrl).toBeNull();
      expect(await target(org.id)).toEqual({ baseUrl: null, secrets: [] });
    });

    it('validates the URL and the secret before calling anything', async () => {
      const org = await organisation('Validating Org', 'integrator');
      const put = (body: unknown) => call('PUT', '/portal/company-profile/webhook', org.admin.token, body);
      const secret = newSecret();
      for (const baseUrl of ['ftp://example.com', 'https://user:pw@example.com', `https://example.com/${'a'.repeat(2000)}`, 'nope', 12]) {
        expect(Object.keys(expectProblem(await put({ baseUrl, secret }), 400).errors ?? {})).toEqual(['baseUrl']);
      }
      expect(Object.keys(expectProblem(await put({ baseUrl: stub.url('good-v'), secret: 'short' }), 400).errors ?? {})).toEqual(['secret']);
      expect(stub.of('good-v')).toHaveLength(0);
    });

    it('keeps the replaced secret signing during the grace period, then only the new one', async () => {
      const org = await organisation('Rotating Org', 'integrator');
      const first = newSecret();
      const second = newSecret();
      expect((await setUp(org, 'good-rot', first)).status).toBe(200);
      // Same secret again: no rotation.
      expect((await setUp(org, 'good-rot', first)).body.rotation.previousSecretActive).toBe(false);
      const rotated = await setUp(org, 'good-rot', second);
      expect(rotated.status).toBe(200);
      expect(rotated.body.rotation.previousSecretActive).toBe(true);
      expect(Date.parse(rotated.body.rotation.previousSecretExpiresAt as string)).toBeGreaterThan(Date.now());
      // /test/auth was signed with the new secret only (the signed call comes before the wrong-secret and stale probes).
      expect(stub.of('good-rot', '/test/auth').at(-3)?.verified).toBe(true);
      expect(await target(org.id)).toEqual({ baseUrl: stub.url('good-rot'), secrets: [second, first], signatureSchemes: ['hmac', 'v1'] });
      await eventually(async () => (await target(org.id)).secrets.length === 1, (GRACE_SECONDS + 3) * 1000, 'grace period to end');
      expect(await target(org.id)).toEqual({ baseUrl: stub.url('good-rot'), secrets: [second], signatureSchemes: ['hmac', 'v1'] });
      expect((await call<Profile>('GET', '/portal/company-profile', org.admin.token)).body.rotation.previousSecretActive).toBe(false);
    });

    it('lets only admins change the profile, and shows each organisation only its own', async () => {
      const org = await organisation('Roles Org', 'integrator');
      const other = await organisation('Other Roles Org', 'hirer');
      expect((await setUp(org, 'good-roles')).status).toBe(200);
      const secret = newSecret();
      expectProblem(await call('PUT', '/portal/company-profile/webhook', org.member.token, { baseUrl: stub.url('good-x'), secret }), 403);
      expectProblem(await call('DELETE', '/portal/company-profile/webhook', org.member.token), 403);
      expectProblem(await call('PUT', '/portal/company-profile/suggestions', org.member.token, { enabled: true }), 403);
      expect(stub.of('good-x')).toHaveLength(0);

      const theirs = await call<Profile>('GET', '/portal/company-profile', other.admin.token);
      expect(theirs.body).toMatchObject({ organisationId: other.id, baseUrl: null, secretSet: false });
      // Deleting "my" webhook as the other organisation touches nothing of org's.
      expectProblem(await call('DELETE', '/portal/company-profile/webhook', other.admin.token), 404);
      expect((await target(org.id)).baseUrl).toBe(stub.url('good-roles'));
    });

    it('removes the webhook set-up (and suggestions) on DELETE, with a broadcast', async () => {
      const org = await organisation('Leaving Org', 'integrator');
      expect((await setUp(org, 'good-leave')).status).toBe(200);
      expect((await call('PUT', '/portal/company-profile/suggestions', org.admin.token, { enabled: true })).status).toBe(200);
      const changed: string[] = [];
      const subscription = nats.subscribe(`${events.prefix}${WEBHOOK_TARGET_CHANGED_SUBJECT}`, {
        callback: (_error, message) => void changed.push(message.json<{ organisationId: string }>().organisationId),
      });
      await nats.flush();
      try {
        expect((await call('DELETE', '/portal/company-profile/webhook', org.admin.token)).status).toBe(204);
        await eventually(() => changed.includes(org.id), 5_000, 'broadcast');
      } finally {
        subscription.unsubscribe();
      }
      expect(await target(org.id)).toEqual({ baseUrl: null, secrets: [] });
      const providers = await call<{ providers: Array<{ organisationId: string }> }>('GET', '/portal/suggestion-providers', org.member.token);
      expect(providers.body.providers.map((p) => p.organisationId)).not.toContain(org.id);
      expectProblem(await call('PUT', '/portal/company-profile/suggestions', org.admin.token, { enabled: true }), 409);
    });

    it('refuses loopback addresses when they are not allowed (second process)', async () => {
      const strict = await ServiceProcess.start({
        app: 'contact-directory',
        port: await freePort(),
        env: { ...events.env, DATABASE_URL: database.url, DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN, WEBHOOK_ALLOW_LOOPBACK: 'false' },
      });
      try {
        const org = await organisation('Strict Org', 'integrator');
        const secret = newSecret();
        stub.secrets.set('good-strict', secret);
        const byName = expectProblem(
          await call('PUT', '/portal/company-profile/webhook', org.admin.token, { baseUrl: stub.url('good-strict'), secret }, strict.url),
          422,
        );
        expect(byName.detail).toMatch(/^GET \/test failed: forbidden address: an address of localhost is a loopback address;/);
        // The literal address is checked before any connection too.
        const literal = expectProblem(
          await call('PUT', '/portal/company-profile/webhook', org.admin.token, { baseUrl: stub.url('good-strict').replace('localhost', '127.0.0.1'), secret }, strict.url),
          422,
        );
        expect(literal.detail).toMatch(/GET \/test failed: forbidden address: 127\.0\.0\.1 is a loopback address/);
        expect(stub.of('good-strict')).toHaveLength(0);
      } finally {
        await strict.stop();
      }
    });
  });

  describe('request/reply', () => {
    it('answers ResolveOrganisationContacts with the name and admin addresses; malformed requests negatively', async () => {
      const org = await organisation('Contacts Org');
      expect(await ask<ResolveOrganisationContactsReply>(DirectoryPattern.ResolveOrganisationContacts, { organisationId: org.id })).toEqual({
        name: 'Contacts Org',
        adminEmailAddresses: [org.admin.email],
      });
      for (const request of [{}, { organisationId: 'x' }, { organisationId: randomUUID() }, null, 'x', { organisationId: 7 }]) {
        expect(await ask(DirectoryPattern.ResolveOrganisationContacts, request)).toEqual({ name: null, adminEmailAddresses: [] });
        expect(await ask(DirectoryPattern.ResolveWebhookTarget, request)).toEqual({ baseUrl: null, sealedTarget: null });
      }
    });
  });

  describe('contact suggestions', () => {
    const rating = (value: number) => ({ rating: value, ratingProvider: 'Depot', lastWorked: '2024-03-01' });
    const suggestion = (email: string, ratings = [rating(5)]) => ({ name: `Person ${email}`, emailAddress: email, ratings });

    it('fans out in parallel, keeps what arrived in time, drops invalid entries and de-duplicates', async () => {
      const hirer = await organisation('Searching Hirer');
      const modes = ['healthy', 'slowsuggest', 'malformed', 'ratings'];
      const providers: Record<string, Org> = {};
      for (const mode of modes) {
        const org = await organisation(`Provider ${mode}`, 'integrator');
        expectProblem(await call('PUT', '/portal/company-profile/suggestions', org.admin.token, { enabled: true }), 409);
        expect((await setUp(org, `${mode}-s`)).status).toBe(200);
        const enabled = await call<Profile>('PUT', '/portal/company-profile/suggestions', org.admin.token, { enabled: true });
        expect(enabled.body.suggestionsEnabled).toBe(true);
        providers[mode] = org;
      }
      stub.replies.set('healthy-s', [suggestion('ann@example.com'), suggestion('Shared@Example.com', [rating(4)])]);
      stub.replies.set('slowsuggest-s', [suggestion('late@example.com')]);
      stub.replies.set('malformed-s', '[{"name": "Broken"');
      stub.replies.set('ratings-s', [
        suggestion('six@example.com', [rating(6)]),
        suggestion('zero@example.com', [rating(0)]),
        { name: '', emailAddress: 'noname@example.com', ratings: [] },
        suggestion('shared@example.com', [rating(2)]),
      ]);

      const listed = await call<{ providers: Array<{ organisationId: string; name: string; enabled: boolean }> }>('GET', '/portal/suggestion-providers', hirer.member.token);
      for (const mode of modes) expect(listed.body.providers).toContainEqual({ organisationId: providers[mode].id, name: `Provider ${mode}`, enabled: false });

      const started = Date.now();
      const result = await call<{
        suggestions: Array<{ emailAddress: string; organisationId: string; organisationIds: string[]; ratings: Array<{ rating: number }> }>;
        providers: Array<{ organisationId: string; name: string; status: string; returned: number; dropped: number; error?: string }>;
      }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {
        filter: 'pickers',
        organisationIds: modes.map((mode) => providers[mode].id),
      });
      const elapsed = Date.now() - started;
      expect(result.status).toBe(200);
      expect(elapsed).toBeLessThan(SUGGESTIONS_TIMEOUT_MS + 1_000);

      const outcome = (mode: string) => result.body.providers.find((p) => p.organisationId === providers[mode].id);
      expect(outcome('healthy')).toMatchObject({ name: 'Provider healthy', status: 'ok', returned: 2, dropped: 0 });
      expect(outcome('slowsuggest')).toMatchObject({ status: 'timeout', returned: 0 });
      expect(outcome('malformed')).toMatchObject({ status: 'invalid', returned: 0, error: expect.stringMatching(/JSON/) });
      expect(outcome('ratings')).toMatchObject({ status: 'ok', returned: 1, dropped: 3 });

      expect(result.body.suggestions.map((s) => s.emailAddress)).toEqual(['ann@example.com', 'Shared@Example.com']);
      const shared = result.body.suggestions[1];
      expect(shared.organisationId).toBe(providers.healthy.id);
      expect(shared.organisationIds).toEqual([providers.healthy.id, providers.ratings.id]);
      expect(shared.ratings.map((r) => r.rating)).toEqual([4, 2]);

      for (const mode of modes) {
        const [received] = stub.of(`${mode}-s`, '/contact-suggestions');
        expect(received.method).toBe('POST');
        expect(JSON.parse(received.body)).toEqual({ filter: 'pickers', userEmailAddresses: [hirer.member.email] });
        expect(received.verified).toBe(true);
      }

      // An unknown id is reported, not fatal.
      const stranger = randomUUID();
      const some = await call<{ providers: Array<{ organisationId: string; status: string }> }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {
        organisationIds: [providers.healthy.id, stranger],
      });
      expect(some.body.providers).toEqual([
        expect.objectContaining({ organisationId: providers.healthy.id, status: 'ok' }),
        expect.objectContaining({ organisationId: stranger, status: 'error' }),
      ]);
      expect(JSON.parse(stub.of('healthy-s', '/contact-suggestions').at(-1)?.body ?? '')).toEqual({ userEmailAddresses: [hirer.member.email] });
      // Without organisationIds only the providers the hirer's organisation enabled are asked.
      expect((await call('PUT', `/portal/suggestion-providers/${providers.healthy.id}`, hirer.admin.token, { enabled: true })).status).toBe(200);
      const enabledOnly = await call<{ providers: Array<{ organisationId: string }> }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {});
      expect(enabledOnly.body.providers.map((p) => p.organisationId)).toEqual([providers.healthy.id]);

      expect(Object.keys(expectProblem(await call('POST', '/portal/contact-suggestions/search', hirer.member.token, { filter: 'x'.repeat(201) }), 400).errors ?? {})).toEqual(['filter']);
      expect(
        Object.keys(expectProblem(await call('POST', '/portal/contact-suggestions/search', hirer.member.token, { organisationIds: ['nope'] }), 400).errors ?? {}),
      ).toEqual(['organisationIds[0]']);
    });
  });

  describe('suggestion providers: who may answer, and who is asked', () => {
    interface ProviderEntry {
      organisationId: string;
      name: string;
      enabled: boolean;
    }
    const providerList = async (org: Org) =>
      (await call<{ providers: ProviderEntry[] }>('GET', '/portal/suggestion-providers', org.member.token)).body.providers;
    const searchCalls = (mode: string) => stub.of(mode, '/contact-suggestions').length;

    it('lets an organisation answer searches only when it is an integrator or an operator approved it', async () => {
      const agency = await organisation('Unapproved Agency', 'agency');
      const hirer = await organisation('Curious Hirer');
      expect((await setUp(agency, 'agency-p')).status).toBe(200);

      // The profile says whether the organisation may offer suggestions, so the portal offers no switch that is refused.
      expect((await call<Profile>('GET', '/portal/company-profile', agency.member.token)).body.suggestionsAllowed).toBe(false);
      const refused = expectProblem(await call('PUT', '/portal/company-profile/suggestions', agency.admin.token, { enabled: true }), 403);
      expect(refused.type).toMatch(/\/suggestion-provider-not-approved$/);
      expect((await providerList(hirer)).map((p) => p.organisationId)).not.toContain(agency.id);

      expectProblem(await admin('PUT', `/admin/organisations/${agency.id}/suggestion-provider`, { approved: 'yes' }), 400);
      expectProblem(await admin('PUT', `/admin/organisations/${randomUUID()}/suggestion-provider`, { approved: true }), 404);
      expectProblem(await call('PUT', `/admin/organisations/${agency.id}/suggestion-provider`, agency.admin.token, { approved: true }), 401);
      const approved = await admin<{ organisationId: string; suggestionProviderApproved: boolean }>('PUT', `/admin/organisations/${agency.id}/suggestion-provider`, {
        approved: true,
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ organisationId: agency.id, suggestionProviderApproved: true });
      expect((await call<Profile>('GET', '/portal/company-profile', agency.member.token)).body.suggestionsAllowed).toBe(true);
      expect((await call<Profile>('PUT', '/portal/company-profile/suggestions', agency.admin.token, { enabled: true })).body.suggestionsEnabled).toBe(true);
      expect(await providerList(hirer)).toContainEqual({ organisationId: agency.id, name: 'Unapproved Agency', enabled: false });

      // Chosen explicitly, it is asked; once the approval is withdrawn it is neither listed nor asked.
      const before = searchCalls('agency-p');
      const asked = await call<{ providers: Array<{ organisationId: string; status: string }> }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {
        organisationIds: [agency.id],
      });
      expect(asked.body.providers).toEqual([expect.objectContaining({ organisationId: agency.id, status: 'ok' })]);
      expect(searchCalls('agency-p')).toBe(before + 1);

      expect((await admin('PUT', `/admin/organisations/${agency.id}/suggestion-provider`, { approved: false })).status).toBe(200);
      expect((await providerList(hirer)).map((p) => p.organisationId)).not.toContain(agency.id);
      const notAsked = await call<{ providers: Array<{ organisationId: string; status: string }> }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {
        organisationIds: [agency.id],
      });
      expect(notAsked.body.providers).toEqual([expect.objectContaining({ organisationId: agency.id, status: 'error' })]);
      expect(searchCalls('agency-p')).toBe(before + 1);
    });

    it("sends a search without chosen providers only to the providers the hirer's organisation enabled", async () => {
      const hirer = await organisation('Careful Hirer');
      const [first, second] = [await organisation('Provider One', 'integrator'), await organisation('Provider Two', 'integrator')];
      for (const [org, mode] of [
        [first, 'one-p'],
        [second, 'two-p'],
      ] as const) {
        expect((await setUp(org, mode)).status).toBe(200);
        expect((await call('PUT', '/portal/company-profile/suggestions', org.admin.token, { enabled: true })).status).toBe(200);
      }
      const calls = () => [searchCalls('one-p'), searchCalls('two-p')];
      const start = calls();

      // Nothing enabled yet: nobody is asked, so no e-mail address leaves the platform.
      const none = await call<{ providers: unknown[]; suggestions: unknown[] }>('POST', '/portal/contact-suggestions/search', hirer.member.token, { filter: 'x' });
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ providers: [], suggestions: [] });
      expect(calls()).toEqual(start);

      // Only an admin of the hirer's organisation chooses; only real providers can be chosen.
      expectProblem(await call('PUT', `/portal/suggestion-providers/${first.id}`, hirer.member.token, { enabled: true }), 403);
      expectProblem(await call('PUT', `/portal/suggestion-providers/${randomUUID()}`, hirer.admin.token, { enabled: true }), 404);
      expectProblem(await call('PUT', `/portal/suggestion-providers/${hirer.id}`, hirer.admin.token, { enabled: true }), 404);
      expectProblem(await call('PUT', `/portal/suggestion-providers/${first.id}`, hirer.admin.token, { enabled: 1 }), 400);
      const enabled = await call<ProviderEntry>('PUT', `/portal/suggestion-providers/${first.id}`, hirer.admin.token, { enabled: true });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toEqual({ organisationId: first.id, name: 'Provider One', enabled: true });
      expect(await providerList(hirer)).toEqual(
        expect.arrayContaining([
          { organisationId: first.id, name: 'Provider One', enabled: true },
          { organisationId: second.id, name: 'Provider Two', enabled: false },
        ]),
      );
      // Another organisation's choice is its own.
      expect((await providerList(await organisation('Bystander'))).find((p) => p.organisationId === first.id)?.enabled).toBe(false);

      const searched = await call<{ providers: Array<{ organisationId: string }> }>('POST', '/portal/contact-suggestions/search', hirer.member.token, { filter: 'x' });
      expect(searched.body.providers.map((p) => p.organisationId)).toEqual([first.id]);
      expect(calls()).toEqual([start[0] + 1, start[1]]);

      expect((await call<ProviderEntry>('PUT', `/portal/suggestion-providers/${first.id}`, hirer.admin.token, { enabled: false })).body.enabled).toBe(false);
      expect((await call<{ providers: unknown[] }>('POST', '/portal/contact-suggestions/search', hirer.member.token, {})).body.providers).toEqual([]);
      expect(calls()).toEqual([start[0] + 1, start[1]]);
    });
  });

  describe('invitations', () => {
    it('records invitations and writes invites.created once per new invitation; repeats are idempotent', async () => {
      const hirer = await organisation('Inviting Hirer');
      const suggester = await organisation('Suggesting Integrator', 'integrator');
      const first = await call<{ invitations: Array<{ id: string; emailAddress: string; created: boolean }> }>('POST', '/portal/invitations', hirer.admin.token, {
        invitations: [
          { name: 'Ann Contact', emailAddress: 'ann.contact@example.com', suggestedByOrganisationId: suggester.id },
          { name: 'Bob Contact', emailAddress: 'bob.contact@example.com' },
          { name: 'Ann Again', emailAddress: 'ANN.contact@example.com' },
        ],
      });
      expect(first.status).toBe(201);
      const [ann, bob, annAgain] = first.body.invitations;
      expect(ann).toEqual({ id: expect.any(String), emailAddress: 'ann.contact@example.com', created: true });
      expect(bob.created).toBe(true);
      expect(annAgain).toEqual({ id: ann.id, emailAddress: 'ANN.contact@example.com', created: false });

      const repeat = await call<{ invitations: Array<{ id: string; created: boolean }> }>('POST', '/portal/invitations', hirer.admin.token, {
        invitations: [{ name: 'Ann Contact', emailAddress: 'Ann.Contact@example.com' }],
      });
      expect(repeat.status).toBe(201);
      expect(repeat.body.invitations).toEqual([{ id: ann.id, emailAddress: 'Ann.Contact@example.com', created: false }]);

      // Another organisation inviting the same address gets its own invitation.
      const other = await organisation('Other Inviter');
      const theirs = await call<{ invitations: Array<{ id: string; created: boolean }> }>('POST', '/portal/invitations', other.admin.token, {
        invitations: [{ name: 'Ann', emailAddress: 'ann.contact@example.com' }],
      });
      expect(theirs.body.invitations[0].created).toBe(true);
      expect(theirs.body.invitations[0].id).not.toBe(ann.id);

      const mine = async () => (await events.messages('invites.created')).filter((m) => m.data.organisationId === hirer.id);
      await eventually(async () => (await mine()).length === 2, 10_000, 'invites.created events');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const published = await mine();
      expect(published).toHaveLength(2);
      const annEvent = published.find((m) => m.data.inviteId === ann.id);
      expect(annEvent?.data).toEqual({
        eventId: expect.any(String),
        occurredAt: expect.any(String),
        organisationId: hirer.id,
        inviteId: ann.id,
        invitedByUserId: hirer.admin.id,
        invitedByName: 'Inviting Hirer admin',
        organisationName: 'Inviting Hirer',
        name: 'Ann Contact',
        emailAddress: 'ann.contact@example.com',
        suggestedByOrganisationId: suggester.id,
      });
      expect(annEvent?.msgId).toBe(annEvent?.data.eventId);
      expect(published.find((m) => m.data.inviteId === bob.id)?.data.suggestedByOrganisationId).toBeNull();
    });

    it('two requests inviting the same people at once, in opposite orders, both succeed and agree on one invitation each', async () => {
      const hirer = await organisation('Busy Inviter');
      type Invited = { invitations: Array<{ id: string; emailAddress: string; created: boolean }> };
      for (let round = 0; round < 3; round++) {
        const people = Array.from({ length: 100 }, (_, i) => ({ name: `Person ${String.fromCharCode(65 + (i % 26))}`, emailAddress: `person.${round}.${i}@example.com` }));
        const [a, b] = await Promise.all([
          call<Invited>('POST', '/portal/invitations', hirer.admin.token, { invitations: people }),
          call<Invited>('POST', '/portal/invitations', hirer.admin.token, { invitations: [...people].reverse() }),
        ]);
        expect([a.status, b.status]).toEqual([201, 201]);
        const bInOrder = [...b.body.invitations].reverse();
        expect(a.body.invitations.filter((invitation, i) => invitation.id !== bInOrder[i].id || invitation.created === bInOrder[i].created)).toEqual([]);
      }
    });

    it('validates invitations', async () => {
      const hirer = await organisation('Validating Inviter');
      const post = (body: unknown) => call('POST', '/portal/invitations', hirer.admin.token, body);
      expect(Object.keys(expectProblem(await post({ invitations: [] }), 400).errors ?? {})).toEqual(['invitations']);
      const many = Array.from({ length: 101 }, (_, i) => ({ name: 'N', emailAddress: `n${i}@example.com` }));
      expect(Object.keys(expectProblem(await post({ invitations: many }), 400).errors ?? {})).toEqual(['invitations']);
      const fields = expectProblem(await post({ invitations: [{ name: '', emailAddress: 'nope' }, { name: 'A', emailAddress: 'a@example.com', suggestedByOrganisationId: 'x' }] }), 400);
      expect(Object.keys(fields.errors ?? {}).sort()).toEqual(['invitations[0].emailAddress', 'invitations[0].name', 'invitations[1].suggestedByOrganisationId']);
      const unknown = expectProblem(await post({ invitations: [{ name: 'A', emailAddress: 'a@example.com', suggestedByOrganisationId: randomUUID() }] }), 400);
      expect(Object.keys(unknown.errors ?? {})).toEqual(['invitations[0].suggestedByOrganisationId']);
      const rows = await queryDatabase(database.url, 'SELECT 1 FROM directory.invitation WHERE organisation_id = $1', [hirer.id]);
      expect(rows).toHaveLength(0);
    });
  });

  describe('workers add contacts', () => {
    it('records the contact once and writes contacts.added once; lists contacts; 404 for unknown organisations', async () => {
      const agency = await organisation('Worker Agency', 'agency');
      const integrator = await organisation('Contact Integrator', 'integrator');
      const worker = (await admin<{ id: string; token: string }>('POST', `/admin/organisations/${agency.id}/workers`, { name: 'Wendy' })).body;
      const other = (await admin<{ id: string; token: string }>('POST', `/admin/organisations/${agency.id}/workers`, { name: 'Olly' })).body;

      const added = await call<{ id: string; organisationId: string; created: boolean }>('PUT', `/worker/contacts/${integrator.id}`, worker.token);
      expect(added.status).toBe(201);
      expect(added.body).toEqual({ id: expect.any(String), organisationId: integrator.id, created: true });
      const again = await call<{ id: string; created: boolean }>('PUT', `/worker/contacts/${integrator.id.toUpperCase()}`, worker.token);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ id: added.body.id, organisationId: integrator.id, created: false });

      expectProblem(await call('PUT', `/worker/contacts/${randomUUID()}`, worker.token), 404);
      expectProblem(await call('PUT', '/worker/contacts/not-an-id', worker.token), 404);
      expectProblem(await call('PUT', `/worker/contacts/${integrator.id}`, agency.admin.token), 401);

      const list = await call<{ contacts: Array<{ id: string; organisationId: string; organisationName: string }> }>('GET', '/worker/contacts', worker.token);
      expect(list.body.contacts).toEqual([{ id: added.body.id, organisationId: integrator.id, organisationName: 'Contact Integrator', addedAt: expect.any(String) }]);
      expect((await call<{ contacts: unknown[] }>('GET', '/worker/contacts', other.token)).body.contacts).toEqual([]);

      const mine = async () => (await events.messages('contacts.added')).filter((m) => m.data.workerId === worker.id);
      await eventually(async () => (await mine()).length === 1, 10_000, 'contacts.added event');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const published = await mine();
      expect(published).toHaveLength(1);
      expect(published[0].data).toEqual({
        eventId: expect.any(String),
        occurredAt: expect.any(String),
        organisationId: integrator.id,
        contactId: added.body.id,
        workerId: worker.id,
      });
    });
  });

  describe('secrets', () => {
    it('never logs a webhook secret or a credential', () => {
      const logs = service.logs();
      expect(secretsUsed.length).toBeGreaterThan(5);
      for (const secret of secretsUsed) expect(logs).not.toContain(secret);
      expect(logs).not.toMatch(/put_[A-Za-z0-9_-]{20}|wkt_[A-Za-z0-9_-]{20}|apk_[A-Za-z0-9_-]{20}/);
    });
  });
});
