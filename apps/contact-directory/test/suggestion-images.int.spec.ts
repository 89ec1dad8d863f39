import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, createTestEventNamespace, freePort, ServiceProcess, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { verifyRequest } from '@availability/webhook-signing';

const ADMIN_TOKEN = 'contact-directory-images-test-admin-token-0123';
const SECRET = `whsec-${randomUUID()}`;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('a tiny picture, byte for byte \u0000\u00ff\u0080')]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 0x80)]);

/** What the stand-in provider serves under /img/…: its content type and body. */
const IMAGES: Record<string, { type: string; body: Buffer }> = {
  'ok.png': { type: 'image/png', body: PNG },
  'ok.jpg': { type: 'image/jpeg; charset=binary', body: JPEG },
  'huge.png': { type: 'image/png', body: Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]) },
  'evil.svg': { type: 'image/svg+xml', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') },
  'page.html': { type: 'text/html', body: Buffer.from('<script>alert(1)</script>') },
  'lying.png': { type: 'image/png', body: Buffer.from('<html><script>alert(1)</script></html>') },
};

/**
 * The stand-in provider: answers the webhook set-up checks and signed suggestion searches, and
 * serves images; it records every path it is asked for.
 */
class Provider {
  readonly requests: string[] = [];
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.requests.push(path);
        const verified = verifyRequest({ request: req, body, secret: SECRET }).ok;
        if (path === '/p/test') return void res.writeHead(200).end();
        if (path === '/p/test/auth' || path === '/p/contact-suggestions') {
          if (!verified) return void res.writeHead(401).end();
          if (path === '/p/test/auth') return void res.writeHead(200).end();
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.suggestions()));
        }
        const image = IMAGES[path.replace(/^\/img\//, '')];
        if (image) return void res.writeHead(200, { 'content-type': image.type }).end(image.body);
        res.writeHead(404).end();
      });
    });
    this.server.listen(0, 'localhost');
    await once(this.server, 'listening');
    this.base = `http://localhost:${(this.server.address() as { port: number }).port}`;
  }

  /** One suggestion per image (its name says which), a private and a link-local target, and one without an image. */
  private suggestions(): unknown[] {
    const person = (name: string, profileImageUrl?: string) => ({ name, emailAddress: `${name}@example.com`, profileImageUrl, ratings: [] });
    return [
      ...Object.keys(IMAGES).map((file) => person(file.replace('.', '-'), `${this.base}/img/${file}`)),
      person('private', 'http://10.1.2.3/img/ok.png'),
      person('linklocal', 'http://169.254.169.254/latest/meta-data'),
      person('none'),
    ];
  }

  of(path: string): number {
    return this.requests.filter((p) => p === path).length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
  }
}

interface Suggestion {
  name: string;
  profileImagePath?: string;
  profileImageUrl?: string;
}

describe('contact-directory: suggested contacts’ images through the platform', () => {
  let database: TestDatabase;
  let events: TestEventNamespace;
  let service: ServiceProcess;
  const provider = new Provider();
  let hirer: { id: string; token: string };
  let other: { id: string; token: string };
  let paths: Record<string, string>;

  async function call(method: string, path: string, token: string, body?: unknown): Promise<globalThis.Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }
  async function json<T>(method: string, path: string, token: string, body?: unknown): Promise<T> {
    const response = await call(method, path, token, body);
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  }
  async function organisation(name: string, kind: string): Promise<{ id: string; token: string }> {
    const { id } = await json<{ id: string }>('POST', '/admin/organisations', ADMIN_TOKEN, { name, kind });
    const user = await json<{ id: string }>('POST', `/admin/organisations/${id}/users`, ADMIN_TOKEN, { email: `admin@${kind}-${randomUUID().slice(0, 8)}.example`, name, role: 'admin' });
    const { token } = await json<{ token: string }>('POST', `/admin/users/${user.id}/tokens`, ADMIN_TOKEN);
    return { id, token };
  }
  async function expectProblem(response: globalThis.Response, status: number): Promise<{ type: string; detail: string }> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return (await response.json()) as { type: string; detail: string };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    events = await createTestEventNamespace();
    await provider.start();
    service = await ServiceProcess.start({
      app: 'contact-directory',
      port: await freePort(),
      env: { ...events.env, DATABASE_URL: database.url, DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN, SUGGESTIONS_TIMEOUT_MS: '3000' },
    });
    const supplier = await organisation('Picture Provider', 'integrator');
    await json('PUT', '/portal/company-profile/webhook', supplier.token, { baseUrl: `${provider.base}/p`, secret: SECRET });
    await json('PUT', '/portal/company-profile/suggestions', supplier.token, { enabled: true });
    hirer = await organisation('Picture Hirer', 'hirer');
    other = await organisation('Other Hirer', 'hirer');
    const search = await call('POST', '/portal/contact-suggestions/search', hirer.token, { organisationIds: [supplier.id] });
    expect(search.status).toBe(200);
    const text = await search.text();
    // The page never learns where the provider keeps its pictures.
    expect(text).not.toContain(provider.base);
    expect(text).not.toContain('10.1.2.3');
    const { suggestions } = JSON.parse(text) as { suggestions: Suggestion[] };
    paths = Object.fromEntries(suggestions.map((s) => [s.name, s.profileImagePath ?? '']));
    for (const suggestion of suggestions) expect(suggestion).not.toHaveProperty('profileImageUrl');
  });

  afterAll(async () => {
    await service?.stop();
    await provider.stop();
    await database?.drop();
    await events?.dispose();
  });

  it('answers searches with references to the platform’s copies, not the providers’ URLs', () => {
    expect(paths.none).toBe('');
    for (const name of ['ok-png', 'ok-jpg', 'huge-png', 'evil-svg', 'page-html', 'lying-png', 'private', 'linklocal']) {
      expect(paths[name]).toMatch(/^\/portal\/contact-suggestions\/image\?ref=[A-Za-z0-9._%-]+$/);
    }
    expect(new Set(Object.values(paths)).size).toBe(Object.keys(paths).length);
    expect(provider.requests.filter((p) => p.startsWith('/img/'))).toEqual([]);
  });

  it('serves the image with its checked type and headers that keep it an image, fetching it from the provider once', async () => {
    const first = await call('GET', paths['ok-png'], hirer.token);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer()).equals(PNG)).toBe(true);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(first.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);

    const again = await call('GET', paths['ok-png'], hirer.token);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(PNG)).toBe(true);
    expect(provider.of('/img/ok.png')).toBe(1);

    const jpeg = await call('GET', paths['ok-jpg'], hirer.token);
    expect(jpeg.status).toBe(200);
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg');
  });

  it.each([
    ['huge-png', /larger than 1048576 bytes/],
    ['evil-svg', /image\/svg\+xml is not an allowed image type/],
    ['page-html', /text\/html is not an allowed image type/],
    ['lying-png', /not a image\/png image/],
    ['private', /forbidden-address: 10\.1\.2\.3 is a private/],
    ['linklocal', /forbidden-address: 169\.254\.169\.254 is a/],
  ])('refuses %s with 502, and remembers the failure', async (name, why) => {
    const problem = await expectProblem(await call('GET', paths[name], hirer.token), 502);
    expect(problem.type).toMatch(/\/suggestion-image-unavailable$/);
    expect(problem.detail).toMatch(why);
    await expectProblem(await call('GET', paths[name], hirer.token), 502);
    const file = name.replace('-', '.');
    if (file in IMAGES) expect(provider.of(`/img/${file}`)).toBe(1);
  });

  it('refuses a reference of another organisation, a forged one and none at all with 404', async () => {
    await expectProblem(await call('GET', paths['ok-png'], other.token), 404);
    const ref = decodeURIComponent(paths['ok-png'].split('ref=')[1]);
    const forged = ref.slice(0, -4) + (ref.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expectProblem(await call('GET', `/portal/contact-suggestions/image?ref=${encodeURIComponent(forged)}`, hirer.token), 404);
    await expectProblem(await call('GET', '/portal/contact-suggestions/image?ref=v1.x.y.z', hirer.token), 404);
    await expectProblem(await call('GET', '/portal/contact-suggestions/image', hirer.token), 404);
    await expectProblem(await call('GET', `/portal/contact-suggestions/image?ref=${encodeURIComponent(ref)}`, 'put_not-a-token'), 401);
  });
});
