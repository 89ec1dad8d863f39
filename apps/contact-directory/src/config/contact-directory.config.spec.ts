import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { assertAdminTokenAllowed, ContactDirectoryConfig } from './contact-directory.config.js';

const LONG_TOKEN = 'x'.repeat(32);

describe('ContactDirectoryConfig', () => {
  it('defaults to port 3001 and a development admin token', () => {
    const config = loadConfig(ContactDirectoryConfig, {});
    expect(config.PORT).toBe(3001);
    expect(config.DIRECTORY_ADMIN_TOKEN).toBe('dev-admin-token');
    expect(() => assertAdminTokenAllowed(config)).not.toThrow();
  });

  it('reads the port and admin token from the environment', () => {
    const config = loadConfig(ContactDirectoryConfig, { PORT: '4001', DIRECTORY_ADMIN_TOKEN: 'operator-token' });
    expect(config.PORT).toBe(4001);
    expect(config.DIRECTORY_ADMIN_TOKEN).toBe('operator-token');
  });

  it('refuses to start in production without a long admin token, without revealing it', () => {
    const unset = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production' });
    expect(() => assertAdminTokenAllowed(unset)).toThrow(ConfigValidationError);
    const short = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: 'short-secret' });
    expect(() => assertAdminTokenAllowed(short)).toThrow(/DIRECTORY_ADMIN_TOKEN/);
    expect(() => assertAdminTokenAllowed(short)).not.toThrow(/short-secret/);
    const long = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN });
    expect(() => assertAdminTokenAllowed(long)).not.toThrow();
  });

  it('allows short tokens outside production', () => {
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test', DIRECTORY_ADMIN_TOKEN: 't' }))).not.toThrow();
  });
});
