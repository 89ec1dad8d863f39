import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import { DirectoryPattern, type ResolveWebhookTargetReply, type WebhookTarget } from '@availability/contracts';
import { openWebhookTarget, SealedBox } from '@availability/messaging';
import { issuePortalUserToken, PortalClient, WorkerContactsClient } from '@availability/platform-client';
import { eventually, queryDatabase, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';
import { RemoteKeySet, verifyRequest, verifyStandardWebhook, type VerifyResult, WELL_KNOWN_KEY_SET_PATH } from '@availability/webhook-signing';

/**
 * The company profile's signature setting, end to end: contact-directory stores it and signs
 * `/test/auth` and suggestion searches with it; webhook-dispatcher (which publishes the key set both
 * services sign with) signs deliveries with it. The integrator stand-in verifies `v1a` from the
 * dispatcher's published key set and `hmac` with the organisation's secret.
 */
interface Received {
  mode: string;
  path: string;
  headers: IncomingMessage['headers'];
  hmac: boolean;
  v1: boolean;
  v1a: VerifyResult;
}

class Integrator {
  readonly received: Received[] = [];
  readonly secrets = new Map<string, string>();
  private readonly server: Server;

  constructor(private readonly keys: RemoteKeySet) {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const [, mode, ...rest] = (req.url ?? '/').split('/');
        const path = `/${rest.join('/')}`;
        const secret = this.secrets.get(mode) ?? 'no-secret-registered';
        void this.keys.verify(req, body).then((v1a) => {
          const hmac = verifyRequest({ request: req, body, secret }).ok;
          const v1 = verifyStandardWebhook({ headers: req.headers, body, secret }).ok;
          this.received.push({ mode, path, headers: req.headers, hmac, v1, v1a });
          // Spec 5: /test/auth checks the spec's headers; everything else here trusts v1a only.
          const ok = path === '/test' || (path === '/test/auth' ? hmac : v1a.ok);
          res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(path === '/contact-suggestions' ? '[]' : '');
        });
      });
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  url(mode: string): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/${mode}`;
  }

  of(mode: string, path: string): Received[] {
    return this.received.filter((request) => request.mode === mode && request.path.startsWith(path));
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

let platform: TestPlatform;
let integrator: Integrator;
let nats: NatsConnection;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'webhook-dispatcher'], { LOG_LEVEL: 'debug' });
  integrator = new Integrator(new RemoteKeySet({ url: `${platform.url('webhook-dispatcher')}${WELL_KNOWN_KEY_SET_PATH}` }));
  await integrator.start();
  nats = await platform.events.connect();
}, 120_000);

afterAll(async () => {
  await nats?.close();
  integrator?.close();
  await platform?.stop();
});

async function organisation(kind: 'integrator' | 'hirer' = 'integrator') {
  const org = await platform.admin.createOrganisation(`Signing ${randomUUID().slice(0, 8)}`, kind);
  const user = await platform.admin.createUser(org.id, { email: `admin-${randomUUID().slice(0, 8)}@example.com`, name: 'Admin', role: 'admin' });
  const { token } = await issuePortalUserToken(platform.url('contact-directory'), TEST_ADMIN_TOKEN, user.id);
  return { id: org.id, token, portal: new PortalClient(platform.url('contact-directory'), token) };
}

/** The target as the dispatcher sees it: the reply opened with the dispatcher's key (the secrets are sealed on the bus). */
async function target(organisationId: string): Promise<WebhookTarget> {
  const message = await nats.request(`${platform.events.prefix}${DirectoryPattern.ResolveWebhookTarget}`, JSON.stringify({ organisationId }), { timeout: 10_000 });
  const { directory, dispatcher } = platform.events.credentials.sealing;
  return openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, organisationId, message.json<{ result: ResolveWebhookTargetReply }>().result);
}

describe('signature schemes per endpoint', () => {
  it('saves a v1a-only choice: /test/auth still carries hmac (spec 5) plus v1a, both verifiable; shown, stored and passed on', async () => {
    const org = await organisation();
    const secret = `whsec-${randomUUID()}`;
    integrator.secrets.set('only-v1a', secret);
    const saved = await org.portal.saveWebhook(integrator.url('only-v1a'), secret, ['v1a']);
    expect(saved.signatureSchemes).toEqual(['v1a']);

    const [auth] = integrator.of('only-v1a', '/test/auth');
    expect(auth).toMatchObject({ hmac: true, v1: false, v1a: { ok: true } });
    expect(auth.headers['webhook-signature']).toMatch(/^v1a,\S+$/);
    expect(auth.headers['webhook-key-id']).toMatch(/^test-[0-9a-f]{8}$/);

    expect((await org.portal.companyProfile()).signatureSchemes).toEqual(['v1a']);
    const rows = await queryDatabase(platform.database.url, 'SELECT signature_schemes FROM directory.company_profile WHERE organisation_id = $1', [org.id]);
    expect(rows).toEqual([{ signature_schemes: ['v1a'] }]);
    expect((await target(org.id)).signatureSchemes).toEqual(['v1a']);
  });

  it('keeps the saved choice when a save names none, stores a list in one order, and defaults new profiles to hmac and v1', async () => {
    const org = await organisation();
    const secret = `whsec-${randomUUID()}`;
    integrator.secrets.set('keep', secret);
    expect((await org.portal.saveWebhook(integrator.url('keep'), secret)).signatureSchemes).toEqual(['hmac', 'v1']);
    expect(integrator.of('keep', '/test/auth').at(-3)).toMatchObject({ hmac: true, v1: true, v1a: { ok: false, reason: 'missing_headers' } });
    expect((await org.portal.saveWebhook(integrator.url('keep'), secret, ['v1a', 'v1', 'hmac', 'v1a'])).signatureSchemes).toEqual(['hmac', 'v1', 'v1a']);
    expect(integrator.of('keep', '/test/auth').at(-3)).toMatchObject({ hmac: true, v1: true, v1a: { ok: true } });
    expect((await org.portal.saveWebhook(integrator.url('keep'), secret)).signatureSchemes).toEqual(['hmac', 'v1', 'v1a']);
    expect((await target(org.id)).signatureSchemes).toEqual(['hmac', 'v1', 'v1a']);
  });

  it('refuses a malformed choice with a 400 on the field, calling nothing and changing nothing', async () => {
    const org = await organisation();
    const secret = `whsec-${randomUUID()}`;
    integrator.secrets.set('bad', secret);
    await org.portal.saveWebhook(integrator.url('bad'), secret, ['hmac']);
    const calls = integrator.received.length;
    for (const signatureSchemes of [[], ['v2'], 'v1a', [1], null, ['hmac', 'HMAC'], {}]) {
      const response = await fetch(`${platform.url('contact-directory')}/portal/company-profile/webhook`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ baseUrl: integrator.url('bad'), secret, signatureSchemes }),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { errors: Record<string, string[]> };
      expect(Object.keys(problem.errors)).toEqual(['signatureSchemes']);
    }
    expect(integrator.received.length).toBe(calls);
    expect((await org.portal.companyProfile()).signatureSchemes).toEqual(['hmac']);
  });

  it('a worker contact reaches a v1a-only integrator through the dispatcher signed with v1a alone, verified from the published key set', async () => {
    const org = await organisation();
    const secret = `whsec-${randomUUID()}`;
    integrator.secrets.set('contact', secret);
    await org.portal.saveWebhook(integrator.url('contact'), secret, ['v1a']);
    const agency = await platform.admin.createOrganisation(`Agency ${randomUUID().slice(0, 8)}`, 'agency');
    const [worker] = await platform.admin.createWorkers(agency.id, [{ name: 'Wendy' }]);
    await new WorkerContactsClient(platform.url('contact-directory'), worker.token).addContact(org.id);

    const [delivery] = await eventually(() => integrator.of('contact', '/contact/new/').length > 0 && integrator.of('contact', '/contact/new/'), 20_000, 'contact delivery');
    expect(delivery.path).toBe(`/contact/new/${worker.id}`);
    expect(delivery).toMatchObject({ hmac: false, v1: false, v1a: { ok: true } });
    expect(delivery.headers.authorization).toBeUndefined();
    expect(delivery.headers['webhook-signature']).toMatch(/^v1a,\S+$/);
  }, 30_000);

  it('never logs the private signing key, in either service', () => {
    const [entry] = JSON.parse(platform.env.WEBHOOK_SIGNING_KEYS) as Array<{ privateKeyPem: string }>;
    const keyBody = entry.privateKeyPem.split('\n')[1];
    for (const app of ['contact-directory', 'webhook-dispatcher']) {
      const logs = platform.services[app].logs();
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(keyBody);
      expect(logs).not.toContain('PRIVATE KEY');
    }
  });

  it('signs contact-suggestion searches to a v1a-only provider with v1a alone', async () => {
    const provider = await organisation('integrator');
    const secret = `whsec-${randomUUID()}`;
    integrator.secrets.set('suggest', secret);
    await provider.portal.saveWebhook(integrator.url('suggest'), secret, ['v1a']);
    await provider.portal.setSuggestionsEnabled(true);
    const hirer = await organisation('hirer');
    const result = await hirer.portal.searchSuggestions({ organisationIds: [provider.id] });
    expect(result.providers).toEqual([expect.objectContaining({ organisationId: provider.id, status: 'ok' })]);
    const [search] = integrator.of('suggest', '/contact-suggestions');
    expect(search).toMatchObject({ hmac: false, v1: false, v1a: { ok: true } });
  });
});
