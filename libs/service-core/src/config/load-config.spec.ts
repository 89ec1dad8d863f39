import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from './load-config.js';
import { ServiceConfig } from './service.config.js';

describe('loadConfig', () => {
  it('uses defaults and reads only the variables the class declares', () => {
    const config = loadConfig(ServiceConfig, { PATH: '/bin', DATABASE_POOL_SIZE: '7', HTTP_REQUEST_LOGS: 'false' });
    expect(config.DATABASE_POOL_SIZE).toBe(7);
    expect(config.HTTP_REQUEST_LOGS).toBe(false);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(config).not.toHaveProperty('PATH');
  });

  it('lists every problem, naming the variable but never echoing its value', () => {
    let error: ConfigValidationError | undefined;
    try {
      loadConfig(ServiceConfig, { DATABASE_URL: 'mysql://secret-password@x', DATABASE_POOL_SIZE: 'lots' });
    } catch (caught) {
      error = caught as ConfigValidationError;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect(error?.problems.some((p) => p.startsWith('DATABASE_URL'))).toBe(true);
    expect(error?.problems.some((p) => p.startsWith('DATABASE_POOL_SIZE'))).toBe(true);
    expect(error?.message).not.toContain('secret-password');
  });

  it('takes a DATABASE_URL over TLS only with an sslmode every client reads the same way, its CA in DATABASE_CA_FILE', () => {
    const problems = (url: string) => {
      try {
        loadConfig(ServiceConfig, { DATABASE_URL: url });
        return [];
      } catch (error) {
        return (error as ConfigValidationError).problems;
      }
    };
    expect(problems('postgres://platform@db.internal:5432/platform?sslmode=verify-full')).toEqual([]);
    expect(problems('postgres://platform@localhost/platform?sslmode=disable')).toEqual([]);
    for (const mode of ['require', 'verify-ca', 'prefer', 'no-verify']) {
      expect(problems(`postgres://platform@db.internal/platform?sslmode=${mode}`)).toEqual(['DATABASE_URL: fails sslmode=verify-full or sslmode=disable, when an sslmode is given']);
    }
    expect(problems('postgres://platform@db.internal/platform?sslmode=verify-full&sslrootcert=/etc/platform/ca.pem')).toEqual([
      'DATABASE_URL: fails no sslrootcert (the CA is DATABASE_CA_FILE)',
    ]);
  });

  it('trusts X-Forwarded-For only from the proxies TRUST_PROXY lists by address or range', () => {
    const problems = (value: string) => {
      try {
        loadConfig(ServiceConfig, { TRUST_PROXY: value });
        return [];
      } catch (error) {
        return (error as ConfigValidationError).problems.map((problem) => problem.split(':')[0]);
      }
    };
    expect(problems('10.0.0.0/8, 192.0.2.7, fd00::/8')).toEqual([]);
    for (const value of ['loopback', 'uniquelocal', '172.16.0.0/12,linklocal', '0.0.0.0/0', '10.0.0.0/33', '::::/64']) expect(problems(value)).toEqual(['TRUST_PROXY']);
  });
});
