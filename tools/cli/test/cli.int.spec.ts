import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import { type CredentialVerdict, DirectoryPattern } from '@availability/contracts';
import {
  freePort,
  queryDatabase,
  type ServiceProcess,
  startTestPlatform,
  type TestDatabase,
  type TestEventNamespace,
  type TestPlatform,
} from '@availability/testing';

const ADMIN_TOKEN = 'cli-test-admin-token-0123456789abcdef';
const CLI = resolve(process.cwd(), 'dist/tools/cli/src/main.js');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI as a user runs it, with no inherited DIRECTORY_* settings. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { DIRECTORY_URL: _url, DIRECTORY_ADMIN_TOKEN: _token, ...inherited } = process.env;
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...inherited, ...env } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('cli against a running contact-directory', () => {
  let database: TestDatabase;
  let events: TestEventNamespace;
  let directory: ServiceProcess;
  let nats: NatsConnection;

  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform(['contact-directory'], { DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN });
    ({ database, events } = platform);
    directory = platform.services['contact-directory'];
    nats = await events.connect();
  });

  afterAll(async () => {
    await nats?.close();
    await platform?.stop();
  });

  async function verify(token: string): Promise<CredentialVerdict> {
    const tokenHash = createHash('sha256').update(token, 'utf8').digest('hex');
    const message = await nats.request(`${events.prefix}${DirectoryPattern.VerifyCredential}`, JSON.stringify({ tokenHash }), { timeout: 10_000 });
    const reply = message.json<{ ok: boolean; result: CredentialVerdict }>();
    expect(reply.ok).toBe(true);
    return reply.result;
  }

  it('seeds an organisation with its API key, users and workers, printed as JSON', async () => {
    const run = await cli(['seed', '--name', 'CLI Test Agency', '--kind', 'hirer', '--workers', '3', '--users', '2', '--directory-url', directory.url, '--admin-token', ADMIN_TOKEN]);
    expect(run.stderr).toContain('POST');
    expect(run.code).toBe(0);
    const seeded = JSON.parse(run.stdout);
    expect(seeded).toEqual({
      organisation: { id: expect.stringMatching(UUID), name: 'CLI Test Agency', kind: 'hirer' },
      apiKey: { id: expect.stringMatching(UUID), key: expect.stringMatching(/^apk_[A-Za-z0-9_-]{43}$/) },
      users: [
        { id: expect.stringMatching(UUID), email: 'user1@cli-test-agency.example', name: 'CLI Test Agency user 1', role: 'admin', portalToken: expect.stringMatching(/^put_/) },
        { id: expect.stringMatching(UUID), email: 'user2@cli-test-agency.example', name: 'CLI Test Agency user 2', role: 'member', portalToken: expect.stringMatching(/^put_/) },
      ],
      workers: [1, 2, 3].map((n) => ({
        id: expect.stringMatching(UUID),
        name: `CLI Test Agency worker ${n}`,
        email: `worker${n}@cli-test-agency.example`,
        token: expect.stringMatching(/^wkt_[A-Za-z0-9_-]{43}$/),
      })),
    });

    // The hint on stderr is a working request for this organisation.
    expect(run.stderr).toContain(`Authorization: Bearer ${seeded.apiKey.key}`);
    expect(run.stderr).toContain(seeded.users[0].id);

    // Everything really exists in the directory, and the credentials verify over NATS.
    expect(await verify(seeded.apiKey.key)).toEqual({ kind: 'organisation', organisationId: seeded.organisation.id, apiKeyId: seeded.apiKey.id });
    for (const worker of seeded.workers) expect(await verify(worker.token)).toEqual({ kind: 'worker', workerId: worker.id });
    for (const user of seeded.users) expect(await verify(user.portalToken)).toEqual({ kind: 'user', userId: user.id, organisationId: seeded.organisation.id, role: user.role });
    expect(run.stderr).toContain(seeded.users[0].portalToken);
    const links = await queryDatabase(database.url, 'SELECT worker_id FROM directory.organisation_worker WHERE organisation_id = $1', [
      seeded.organisation.id,
    ]);
    expect(links).toHaveLength(3);

    // revoke-key: the key stops verifying at once.
    const revoked = await cli(['revoke-key', seeded.apiKey.id, '--directory-url', directory.url, '--admin-token', ADMIN_TOKEN]);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`API key ${seeded.apiKey.id} revoked`);
    expect(await verify(seeded.apiKey.key)).toEqual({ kind: 'none' });
  });

  it('takes the directory and admin token from the environment, with the defaults of seed', async () => {
    const run = await cli(['seed'], { DIRECTORY_URL: directory.url, DIRECTORY_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(run.code).toBe(0);
    const seeded = JSON.parse(run.stdout);
    expect(seeded.organisation).toEqual(expect.objectContaining({ name: 'Acme Staffing', kind: 'agency' }));
    expect(seeded.users).toHaveLength(1);
    expect(seeded.workers).toHaveLength(5);
    expect(await verify(seeded.apiKey.key)).toEqual(expect.objectContaining({ kind: 'organisation', organisationId: seeded.organisation.id }));
  });

  it('fails clearly, with a non-zero exit, when the directory refuses', async () => {
    const wrongToken = await cli(['seed', '--directory-url', directory.url, '--admin-token', 'not-the-token']);
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stdout).toBe('');
    expect(wrongToken.stderr).toMatch(/contact-directory answered 401/);
    expect(wrongToken.stderr).toMatch(/--admin-token/);

    const unknownKey = await cli(['revoke-key', 'no-such-key', '--directory-url', directory.url, '--admin-token', ADMIN_TOKEN]);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(/contact-directory answered 404: The API key was not found/);
  });

  it('fails clearly when the directory cannot be reached, and on wrong usage', async () => {
    const unreachable = await cli(['seed', '--directory-url', `http://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/could not reach contact-directory/);

    const usage = await cli(['seed', '--workers', 'lots']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--workers must be a whole number/);

    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage:/);
  });
});
