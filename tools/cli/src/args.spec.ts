import { describe, expect, it } from '@jest/globals';
import { DEFAULT_ADMIN_TOKEN, DEFAULT_DIRECTORY_URL, DEFAULT_OFFERS_URL, parseCommand, UsageError } from './args.js';

describe('parseCommand', () => {
  it('shows help for --help, help, or nothing', () => {
    expect(parseCommand(['--help'])).toEqual({ command: 'help' });
    expect(parseCommand(['-h'])).toEqual({ command: 'help' });
    expect(parseCommand(['help'])).toEqual({ command: 'help' });
    expect(parseCommand([])).toEqual({ command: 'help' });
    expect(parseCommand(['seed', '--help'])).toEqual({ command: 'help' });
  });

  it('checks an integrator with hmac and v1 and the delivery timeout unless told otherwise', () => {
    expect(parseCommand(['check-integrator', 'https://hooks.example/platform/', '--secret', 's3cret'])).toEqual({
      command: 'check-integrator',
      check: { baseUrl: 'https://hooks.example/platform', secret: 's3cret', schemes: ['hmac', 'v1'], timeoutMs: 10_000 },
    });
    expect(parseCommand(['check-integrator', 'http://localhost:4000', '--secret', 's', '--scheme', 'v1', '--timeout-ms', '2500'])).toEqual({
      command: 'check-integrator',
      check: { baseUrl: 'http://localhost:4000', secret: 's', schemes: ['v1'], timeoutMs: 2500 },
    });
  });

  it.each([
    [['check-integrator', 'http://localhost:1', '--secret', 's', '--directory-url', 'http://x'], '--directory-url is not an option of check-integrator'],
    [['check-integrator', 'http://localhost:1', '--secret', 's', '--timeout-ms', '120001'], '--timeout-ms must be a whole number from 1 to 120000'],
    [['check-integrator', 'ftp://localhost:1', '--secret', 's'], 'the base URL must be an http(s) URL'],
    [['revoke-key', 'k', '--scheme', 'v1'], '--scheme is an option of check-integrator, not of revoke-key'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(new UsageError(message));
  });

  it('seeds with defaults', () => {
    expect(parseCommand(['seed'])).toEqual({
      command: 'seed',
      connection: { directoryUrl: DEFAULT_DIRECTORY_URL, adminToken: DEFAULT_ADMIN_TOKEN, offersUrl: DEFAULT_OFFERS_URL },
      seed: { name: 'Acme Staffing', kind: 'agency', workers: 5, users: 1 },
    });
  });

  it('reads every seed option, and the connection from options before the environment', () => {
    const argv = ['seed', '--name', 'Globex Hiring', '--kind', 'hirer', '--workers', '0', '--users', '3', '--directory-url', 'http://dir:9/'];
    const env = { DIRECTORY_URL: 'http://ignored:1', DIRECTORY_ADMIN_TOKEN: 'from-env', OFFERS_API_URL: 'https://offers.example' };
    expect(parseCommand(argv, env)).toEqual({
      command: 'seed',
      connection: { directoryUrl: 'http://dir:9', adminToken: 'from-env', offersUrl: 'https://offers.example' },
      seed: { name: 'Globex Hiring', kind: 'hirer', workers: 0, users: 3 },
    });
    expect(parseCommand(['seed', '--admin-token', 'from-flag'], env)).toEqual(
      expect.objectContaining({ connection: expect.objectContaining({ adminToken: 'from-flag', directoryUrl: 'http://ignored:1' }) }),
    );
  });

  it('reads revoke-key and its id', () => {
    expect(parseCommand(['revoke-key', 'abc'])).toEqual(expect.objectContaining({ command: 'revoke-key', apiKeyId: 'abc' }));
  });

  it.each([
    [['seed', '--kind', 'shop'], /--kind must be one of: hirer, agency, integrator/],
    [['seed', '--workers=-1'], /--workers must be a whole number/],
    [['seed', '--workers', 'many'], /--workers must be a whole number/],
    [['seed', '--users', '1.5'], /--users must be a whole number/],
    [['seed', '--name', '  '], /--name must be 1 to 200 characters/],
    [['seed', 'extra'], /seed takes no arguments/],
    [['seed', '--colour', 'red'], /Unknown option '--colour'/],
    [['seed', '--directory-url', 'localhost:3001'], /--directory-url must be an http\(s\) URL/],
    [['seed', '--admin-token', ''], /--admin-token must not be empty/],
    [['revoke-key'], /exactly one argument/],
    [['revoke-key', 'a', 'b'], /exactly one argument/],
    [['revoke-key', 'a', '--workers', '3'], /--workers is an option of seed/],
    [['launch'], /unknown command "launch"/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommand(argv as string[])).toThrow(UsageError);
    expect(() => parseCommand(argv as string[])).toThrow(message);
  });
});
