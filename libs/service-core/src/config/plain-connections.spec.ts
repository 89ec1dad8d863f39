import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ConfigValidationError, loadConfig } from './load-config.js';
import { isLocalHost } from './plain-connections.js';
import { productionProblems } from './production-rules.js';
import { ServiceConfig } from './service.config.js';

/** The production problems of these settings, by setting name (the rest of the configuration is production-ready or not, it does not matter here). */
function plainProblems(env: Record<string, string>): string[] {
  let config: ServiceConfig;
  try {
    config = loadConfig(ServiceConfig, { NODE_ENV: 'production', ...env });
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    return error.problems.filter((problem) => /without TLS/.test(problem)).map((problem) => problem.split(':')[0]);
  }
  return productionProblems(config).filter((problem) => /without TLS/.test(problem));
}

const REMOTE = {
  DATABASE_URL: 'postgres://platform:secret@db.internal.example:5432/platform',
  NATS_URL: 'nats://nats-0.internal.example:4222,nats://nats-1.internal.example:4222',
  REDIS_URL: 'redis://:secret@redis.internal.example:6379',
};

describe('production: the platform’s own servers over TLS', () => {
  it('names each server reached in clear on another machine, and never a value', () => {
    let error: unknown;
    try {
      loadConfig(ServiceConfig, { NODE_ENV: 'production', ...REMOTE });
    } catch (caught) {
      error = caught;
    }
    const problems = (error as ConfigValidationError).problems.filter((problem) => /without TLS/.test(problem));
    expect(problems.map((problem) => problem.split(':')[0])).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL']);
    expect(problems.join('\n')).not.toMatch(/secret|internal\.example/);
    expect(problems[0]).toBe(
      'DATABASE_URL: reaches PostgreSQL on another machine without TLS: add sslmode=verify-full (or set DATABASE_CA_FILE), or set ALLOW_PLAIN_INTERNAL_CONNECTIONS=true if the network to it is private when NODE_ENV is production',
    );
  });

  it('accepts each one over TLS, as its connection reads TLS', () => {
    expect(plainProblems({ ...REMOTE, DATABASE_URL: `${REMOTE.DATABASE_URL}?sslmode=verify-full` })).not.toContain('DATABASE_URL');
    expect(plainProblems({ ...REMOTE, NATS_URL: 'tls://nats-0.internal.example:4222,nats://nats-1.internal.example:4222' })).not.toContain('NATS_URL');
    expect(plainProblems({ ...REMOTE, REDIS_URL: 'rediss://:secret@redis.internal.example:6380' })).not.toContain('REDIS_URL');
    expect(plainProblems({ ...REMOTE, REDIS_URL: 'rediss://:secret@localhost', REDIS_SENTINELS: 'sentinel-0.internal.example:26379' })).not.toContain('REDIS_URL');
  });

  it('refuses a CA file whose TLS the URL turns off, and Sentinels on other machines in clear', () => {
    expect(plainProblems({ ...REMOTE, DATABASE_URL: `${REMOTE.DATABASE_URL}?sslmode=disable`, DATABASE_CA_FILE: '/etc/ca.pem' })).toContain('DATABASE_URL');
    expect(plainProblems({ ...REMOTE, REDIS_URL: 'redis://:secret@127.0.0.1', REDIS_SENTINELS: '127.0.0.1:26379,sentinel-1.internal.example:26379' })).toContain('REDIS_URL');
    expect(plainProblems({ ...REMOTE, REDIS_URL: 'redis://:secret@redis.internal.example', REDIS_SENTINELS: 'localhost:26379' })).not.toContain('REDIS_URL');
  });

  it('leaves servers on the same machine, and a network the operator declares private, to plain connections', () => {
    expect(
      plainProblems({
        DATABASE_URL: 'postgres://platform@localhost/platform?host=/run/postgresql',
        NATS_URL: 'nats://127.0.0.1:4222,[::1]:4223',
        REDIS_URL: 'redis://[::1]:6379',
      }),
    ).toEqual([]);
    expect(plainProblems({ ...REMOTE, ALLOW_PLAIN_INTERNAL_CONNECTIONS: 'true' })).toEqual([]);
    // Outside production nothing is asked.
    expect(() => loadConfig(ServiceConfig, { NODE_ENV: 'development', ...REMOTE })).not.toThrow();
  });

  it('counts as the same machine only loopback addresses, localhost and sockets', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => expect(isLocalHost(address)).toBe(address.startsWith('127.'))),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.ipV6(), (address) => expect(isLocalHost(`[${address}]`)).toBe(/^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(address) || /^::ffff:127\./i.test(address))),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.domain(), (domain) => expect(isLocalHost(domain)).toBe(domain === 'localhost' || domain.endsWith('.localhost'))),
      { numRuns: 500 },
    );
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', '127.0.0.1', '127.255.255.254', '[::1]', '::ffff:127.0.0.1', '/run/postgresql']) expect(isLocalHost(host)).toBe(true);
    for (const host of ['localhost.example.com', '10.0.0.1', '[::2]', '0.0.0.0', 'db', '128.0.0.1']) expect(isLocalHost(host)).toBe(false);
  });
});

describe('the connection settings, given anything', () => {
  /** A URL-ish value: a scheme the settings know or not, credentials, a host of any kind, a port, any query. */
  const urlLike = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc
      .tuple(
        fc.constantFrom('postgres://', 'postgresql://', 'nats://', 'tls://', 'redis://', 'rediss://', 'http://', ''),
        fc.option(fc.string({ maxLength: 12 }).map((user) => `${encodeURIComponent(user)}:${encodeURIComponent(user)}@`), { nil: '' }),
        fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6().map((address) => `[${address}]`), fc.constantFrom('localhost', '', '[::1]', '/run/postgresql')),
        fc.option(fc.integer({ min: 0, max: 70_000 }).map((port) => `:${port}`), { nil: '' }),
        fc.option(fc.string({ maxLength: 30 }).map((query) => `/db?${query}`), { nil: '' }),
      )
      .map((parts) => parts.join('')),
  );

  it('are accepted or refused with the settings named, in production or not, and never with anything else', () => {
    fc.assert(
      fc.property(
        fc.record({
          NODE_ENV: fc.constantFrom('production', 'development'),
          DATABASE_URL: urlLike,
          DATABASE_CA_FILE: fc.constantFrom('', 'x'),
          NATS_URL: fc.array(urlLike, { minLength: 1, maxLength: 3 }).map((servers) => servers.join(',')),
          NATS_CA_FILE: fc.constantFrom('', 'x'),
          REDIS_URL: urlLike,
          REDIS_SENTINELS: fc.oneof(fc.constant(''), fc.string({ maxLength: 40 }), fc.array(fc.tuple(fc.domain(), fc.integer({ min: 1, max: 65_535 })).map(([host, port]) => `${host}:${port}`), { minLength: 1, maxLength: 3 }).map((list) => list.join(','))),
          ALLOW_PLAIN_INTERNAL_CONNECTIONS: fc.constantFrom('true', 'false', ''),
        }),
        (env) => {
          try {
            loadConfig(ServiceConfig, env);
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigValidationError);
            for (const problem of (error as ConfigValidationError).problems) expect(problem).toMatch(/^[A-Z_]+: /);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
