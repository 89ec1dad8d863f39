import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createNkeyPair } from '@availability/messaging';

/**
 * `NODE_ENV=production` refuses to start with anything made for development, and says every
 * offending setting at once (names, never values). Each service is started as it is deployed.
 */
const STRONG = 'R7q2Zp9LmX4vT8wKc3NfY6hB1sJd5GaE';
/** Were a configuration accepted, the service could reach nothing: no test touches shared state. */
const UNREACHABLE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1' };

/** PostgreSQL, NATS and Redis on other machines (names that never resolve), without TLS. */
const PLAIN_REMOTE = {
  DATABASE_URL: 'postgres://platform:db-password-0123@db.invalid:5432/platform',
  NATS_URL: 'nats://nats-0.invalid:4222,nats://nats-1.invalid:4222',
  REDIS_URL: 'redis://:redis-password-0123@redis.invalid:6379',
};

interface Exit {
  code: number | null;
  output: string;
}

function start(app: string, env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`dist/apps/${app}/src/main.js`], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'fatal', PORT: '0', ...UNREACHABLE, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const cases: Array<{ app: string; env: Record<string, string>; offending: string[]; secrets: string[] }> = [
  {
    app: 'notification-service',
    env: { PUSH_TRANSPORT: 'recording', DEV_ENDPOINTS: 'true', RECORDING_PUSH_FAILURES: '{}', METRICS_TOKEN: 'change-me-change-me-change-me-change-me', SMTP_ALLOW_PLAIN: 'true' },
    offending: ['PUSH_TRANSPORT', 'DEV_ENDPOINTS', 'RECORDING_PUSH_FAILURES', 'METRICS_TOKEN', 'NATS_NKEY_SEED', 'SMTP_ALLOW_PLAIN'],
    secrets: ['change-me-change-me-change-me-change-me'],
  },
  {
    app: 'contact-directory',
    env: { DIRECTORY_ADMIN_TOKEN: 'change-me-change-me-change-me-change-me', WEBHOOK_ALLOW_LOOPBACK: 'true', METRICS_TOKEN: STRONG },
    offending: ['DIRECTORY_ADMIN_TOKEN', 'DIRECTORY_SECRET_KEY', 'WEBHOOK_ALLOW_LOOPBACK', 'NATS_NKEY_SEED', 'DIRECTORY_XKEY_SEED', 'WEBHOOK_SIGNING_KEYS'],
    secrets: ['change-me-change-me-change-me-change-me'],
  },
  {
    app: 'webhook-dispatcher',
    env: { DISPATCHER_ADMIN_TOKEN: 'a'.repeat(40), WEBHOOK_ALLOW_LOOPBACK: 'true', METRICS_TOKEN: '' },
    offending: ['DISPATCHER_ADMIN_TOKEN', 'WEBHOOK_ALLOW_LOOPBACK', 'METRICS_TOKEN', 'NATS_NKEY_SEED', 'DISPATCHER_XKEY_SEED', 'WEBHOOK_SIGNING_KEYS'],
    secrets: ['a'.repeat(40)],
  },
  {
    app: 'offers-api',
    env: { METRICS_TOKEN: 'short' },
    offending: ['METRICS_TOKEN', 'NATS_NKEY_SEED'],
    secrets: [],
  },
  {
    // Its own servers on other machines, reached in clear: Redis's password would cross the network as it is.
    app: 'offers-api',
    env: { METRICS_TOKEN: STRONG, ...PLAIN_REMOTE },
    offending: ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'NATS_NKEY_SEED'],
    secrets: ['db-password-0123', 'redis-password-0123'],
  },
  {
    app: 'example-integrator',
    env: { INTEGRATOR_SECRET: 'dev-integrator-secret', METRICS_TOKEN: STRONG },
    offending: ['INTEGRATOR_SECRET', 'INTEGRATOR_RECEIVED_TOKEN'],
    secrets: ['dev-integrator-secret'],
  },
  {
    app: 'portal',
    env: { PORTAL_URL: 'http://portal.example', PORTAL_COOKIE_SECRET: 'dev-portal-cookie-secret-0123456789', PORTAL_COOKIE_SECURE: 'false', METRICS_TOKEN: STRONG },
    offending: ['PORTAL_URL', 'PORTAL_COOKIE_SECRET', 'PORTAL_COOKIE_SECURE'],
    secrets: ['dev-portal-cookie-secret-0123456789'],
  },
];

describe('production profile', () => {
  it.each(cases)('$app refuses to start with development settings, naming every one and no value', async ({ app, env, offending, secrets }) => {
    const exit = await start(app, env);
    // For a person: what is wrong, a line a setting, no stack trace; 78 (EX_CONFIG) for an orchestrator.
    expect(exit.code).toBe(78);
    expect(exit.output).toMatch(new RegExp(`^${app} cannot start: its configuration is invalid:\n`));
    expect(exit.output).not.toMatch(/\n\s+at /);
    for (const setting of offending) expect(exit.output).toMatch(new RegExp(`\n  - ${setting}: `));
    for (const secret of secrets) expect(exit.output).not.toContain(secret);
  });

  it('names nothing it need not: a production notification-service with real settings gets past its configuration', async () => {
    // No database is reachable on this port, so the start fails later, at connecting: not at the configuration.
    const exit = await start('notification-service', {
      PUSH_TRANSPORT: 'fcm',
      FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com', private_key: rsaPrivateKey() }),
      METRICS_TOKEN: STRONG,
      NATS_NKEY_SEED: createNkeyPair().seed,
      ...vapidKeys(),
    });
    expect(exit.output).not.toMatch(/its configuration is invalid/);
  });

  it('stops every worker process when one refuses a setting it reads as it starts, quoting none of it', async () => {
    // Loaded by the supervisor without complaint; read by each worker as its push transport starts.
    const brokenAccount = '{"project_id":"p","private_key":SECRETKEYMATERIAL0123456789}';
    const exit = await start('notification-service', {
      SERVICE_PROCESSES: '2',
      PUSH_TRANSPORT: 'fcm',
      FCM_SERVICE_ACCOUNT_JSON: brokenAccount,
      METRICS_TOKEN: STRONG,
      NATS_NKEY_SEED: createNkeyPair().seed,
      ...vapidKeys(),
    });
    expect(exit.code).toBe(78);
    expect(exit.output).toMatch(/notification-service cannot start: its configuration is invalid:\n {2}- FCM_SERVICE_ACCOUNT_JSON: is not JSON\n/);
    expect(exit.output).not.toContain('SECRETKEY');
  });

  it('leaves plain connections to its own servers to an operator who declares the network private', async () => {
    const exit = await start('offers-api', { METRICS_TOKEN: STRONG, NATS_NKEY_SEED: createNkeyPair().seed, ALLOW_PLAIN_INTERNAL_CONNECTIONS: 'true', ...PLAIN_REMOTE });
    expect(exit.code).not.toBe(0);
    expect(exit.output).not.toMatch(/its configuration is invalid/);
    // It got as far as connecting to them.
    expect(exit.output).toMatch(/cannot be reached/);
  });
});

/** A Web Push key pair as production requires it: base64url, the public key as the uncompressed P-256 point. */
function vapidKeys(): Record<string, string> {
  const { x = '', y = '', d = '' } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]);
  return { VAPID_PUBLIC_KEY: point.toString('base64url'), VAPID_PRIVATE_KEY: d, VAPID_SUBJECT: 'mailto:ops@availability.example' };
}

/** A private key in PEM, as a Firebase service account holds it (firebase-admin reads it at the start). */
function rsaPrivateKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}
