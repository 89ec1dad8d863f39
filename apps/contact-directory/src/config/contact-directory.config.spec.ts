import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { randomBytes } from 'node:crypto';
import { createNkeyPair, createSealingKeys } from '@availability/messaging';
import { addressPolicy, assertAdminTokenAllowed, ContactDirectoryConfig, DEV_SECRET_KEY, secretKey } from './contact-directory.config.js';

const LONG_TOKEN = 'x'.repeat(32);
const KEY = randomBytes(32).toString('base64');
/** The bus settings production requires: the service's NATS nkey, its sealing seed and the dispatcher's key. */
const BUS = { NATS_NKEY_SEED: createNkeyPair().seed, DIRECTORY_XKEY_SEED: createSealingKeys().seed, DISPATCHER_XKEY: createSealingKeys().publicKey };

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
    const unset = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', ...BUS });
    expect(() => assertAdminTokenAllowed(unset)).toThrow(ConfigValidationError);
    const short = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: 'short-secret', ...BUS });
    expect(() => assertAdminTokenAllowed(short)).toThrow(/DIRECTORY_ADMIN_TOKEN/);
    expect(() => assertAdminTokenAllowed(short)).not.toThrow(/short-secret/);
    const long = loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY, ...BUS });
    expect(() => assertAdminTokenAllowed(long)).not.toThrow();
  });

  it('allows short tokens outside production', () => {
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test', DIRECTORY_ADMIN_TOKEN: 't' }))).not.toThrow();
  });

  it('needs a 32-byte secret key, and a real one in production', () => {
    const dev = loadConfig(ContactDirectoryConfig, {});
    expect(secretKey(dev)).toHaveLength(32);
    expect(dev.DIRECTORY_SECRET_KEY).toBe(DEV_SECRET_KEY);
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, ...BUS };
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, production))).toThrow(/DIRECTORY_SECRET_KEY/);
    const short = randomBytes(16).toString('base64');
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: short }))).toThrow(/DIRECTORY_SECRET_KEY: must be 32 bytes/);
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: short }))).not.toThrow(short);
    expect(secretKey(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: KEY }))).toEqual(Buffer.from(KEY, 'base64'));
  });

  it('allows loopback calls to integrators outside production only, unless configured', () => {
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test' }))).toEqual({ allowLoopback: true, allowPrivate: false });
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'production', ...BUS }))).toEqual({ allowLoopback: false, allowPrivate: false });
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, { WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' }))).toEqual({
      allowLoopback: false,
      allowPrivate: true,
    });
    expect(() => loadConfig(ContactDirectoryConfig, { WEBHOOK_ALLOW_LOOPBACK: 'maybe' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
  });

  it('needs its sealing keys in production, and refuses malformed keys anywhere, without revealing them', () => {
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY };
    const noSealing = loadConfig(ContactDirectoryConfig, { ...production, NATS_NKEY_SEED: BUS.NATS_NKEY_SEED });
    expect(() => assertAdminTokenAllowed(noSealing)).toThrow(/DIRECTORY_XKEY_SEED: must be set[\s\S]*DISPATCHER_XKEY: must be set/);
    expect(() => loadConfig(ContactDirectoryConfig, { NATS_NKEY_SEED: 'SUnot-a-seed' })).toThrow(/NATS_NKEY_SEED/);
    const wrongKind = loadConfig(ContactDirectoryConfig, { DIRECTORY_XKEY_SEED: BUS.NATS_NKEY_SEED, DISPATCHER_XKEY: 'Xnot-a-key' });
    expect(() => assertAdminTokenAllowed(wrongKind)).toThrow(/DIRECTORY_XKEY_SEED: must be an xkey seed[\s\S]*DISPATCHER_XKEY: must be a public xkey/);
    expect(() => assertAdminTokenAllowed(wrongKind)).not.toThrow(BUS.NATS_NKEY_SEED);
    expect(() => assertAdminTokenAllowed(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test', ...BUS }))).not.toThrow();
  });

  it('reads the grace period and suggestion limits', () => {
    const config = loadConfig(ContactDirectoryConfig, { WEBHOOK_SECRET_GRACE_SECONDS: '5', SUGGESTIONS_TIMEOUT_MS: '300' });
    expect(config.WEBHOOK_SECRET_GRACE_SECONDS).toBe(5);
    expect(config.SUGGESTIONS_TIMEOUT_MS).toBe(300);
    expect(loadConfig(ContactDirectoryConfig, {}).WEBHOOK_SECRET_GRACE_SECONDS).toBe(86_400);
  });
});
