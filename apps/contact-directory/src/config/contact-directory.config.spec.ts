import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { assertStartsOrNamesTheProblems, createTestCertificates, readSharedSettings } from '@availability/testing';
import { randomBytes } from 'node:crypto';
import { createNkeyPair, createSealingKeys } from '@availability/messaging';
import { generateSigningKeysJson } from '@availability/webhook-signing';
import {
  addressPolicy,
  assertKeys,
  ContactDirectoryConfig,
  DEV_SECRET_KEY,
  outboundClientOptions,
  secretKey,
  signingKeys,
} from './contact-directory.config.js';

const LONG_TOKEN = randomBytes(24).toString('base64url');
const METRICS_TOKEN = randomBytes(24).toString('base64url');
const KEY = randomBytes(32).toString('base64');
const SIGNING_KEYS = generateSigningKeysJson('test-1');
/** The bus settings production requires: the service's NATS nkey, its sealing seed and the dispatcher's key. */
const BUS = { NATS_NKEY_SEED: createNkeyPair().seed, DIRECTORY_XKEY_SEED: createSealingKeys().seed, DISPATCHER_XKEY: createSealingKeys().publicKey };

describe('ContactDirectoryConfig', () => {
  it('defaults to port 3001 and a development admin token', () => {
    const config = loadConfig(ContactDirectoryConfig, {});
    expect(config.PORT).toBe(3001);
    expect(config.DIRECTORY_ADMIN_TOKEN).toBe('dev-admin-token');
    expect(() => assertKeys(config)).not.toThrow();
  });

  it('reads the port and admin token from the environment', () => {
    const config = loadConfig(ContactDirectoryConfig, { PORT: '4001', DIRECTORY_ADMIN_TOKEN: 'operator-token' });
    expect(config.PORT).toBe(4001);
    expect(config.DIRECTORY_ADMIN_TOKEN).toBe('operator-token');
  });

  it('refuses to start in production without a real admin token, without revealing it', () => {
    const production = { NODE_ENV: 'production', DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS, ...BUS };
    expect(() => loadConfig(ContactDirectoryConfig, production)).toThrow(/DIRECTORY_ADMIN_TOKEN: must not be the development default/);
    const load = (token: string) => () => loadConfig(ContactDirectoryConfig, { ...production, DIRECTORY_ADMIN_TOKEN: token });
    expect(load('short-secret')).toThrow(ConfigValidationError);
    expect(load('short-secret')).not.toThrow(/short-secret/);
    expect(load('change-me-change-me-change-me-change-me')).toThrow(/DIRECTORY_ADMIN_TOKEN: looks like a placeholder/);
    expect(load(LONG_TOKEN)).not.toThrow();
  });

  it('refuses loopback integrators in production, and allows short tokens outside it', () => {
    const production = { NODE_ENV: 'production', DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, DIRECTORY_ADMIN_TOKEN: LONG_TOKEN };
    expect(() => loadConfig(ContactDirectoryConfig, { ...production, WEBHOOK_ALLOW_LOOPBACK: 'true' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK: is for development only/);
    expect(() => loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test', DIRECTORY_ADMIN_TOKEN: 't' })).not.toThrow();
  });

  it('needs a 32-byte secret key, and a real one in production', () => {
    const dev = loadConfig(ContactDirectoryConfig, {});
    expect(secretKey(dev)).toHaveLength(32);
    expect(dev.DIRECTORY_SECRET_KEY).toBe(DEV_SECRET_KEY);
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, METRICS_TOKEN, ...BUS };
    expect(() => loadConfig(ContactDirectoryConfig, production)).toThrow(/DIRECTORY_SECRET_KEY: must not be the development default/);
    const short = randomBytes(16).toString('base64');
    expect(() => assertKeys(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: short }))).toThrow(/DIRECTORY_SECRET_KEY: must be 32 bytes/);
    expect(() => assertKeys(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: short }))).not.toThrow(short);
    expect(secretKey(loadConfig(ContactDirectoryConfig, { DIRECTORY_SECRET_KEY: KEY }))).toEqual(Buffer.from(KEY, 'base64'));
  });

  it('allows loopback calls to integrators outside production only, unless configured', () => {
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test' }))).toEqual({ allowLoopback: true, allowPrivate: false });
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS, ...BUS };
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, production))).toEqual({ allowLoopback: false, allowPrivate: false });
    expect(addressPolicy(loadConfig(ContactDirectoryConfig, { WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' }))).toEqual({
      allowLoopback: false,
      allowPrivate: true,
    });
    expect(() => loadConfig(ContactDirectoryConfig, { WEBHOOK_ALLOW_LOOPBACK: 'maybe' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
  });

  it('needs signing keys in production, generates one elsewhere, and never shows key material in errors', () => {
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, ...BUS };
    expect(() => loadConfig(ContactDirectoryConfig, production)).toThrow(/WEBHOOK_SIGNING_KEYS: must be set/);
    const broken = loadConfig(ContactDirectoryConfig, { ...production, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS.replace('"kid":"test-1"', '"kid":""') });
    expect(() => assertKeys(broken)).toThrow(/WEBHOOK_SIGNING_KEYS: key 1: kid/);
    expect(() => assertKeys(broken)).not.toThrow(/PRIVATE KEY/);
    const development = loadConfig(ContactDirectoryConfig, {});
    expect(signingKeys(development).active.kid).toMatch(/^dev-/);
    expect(signingKeys(development).keySet()).toEqual(signingKeys(development).keySet());
    expect(signingKeys(loadConfig(ContactDirectoryConfig, { WEBHOOK_SIGNING_KEYS: SIGNING_KEYS })).active.kid).toBe('test-1');
  });

  it('needs its sealing keys in production, and refuses malformed keys anywhere, without revealing them', () => {
    const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS };
    expect(() => loadConfig(ContactDirectoryConfig, { ...production, NATS_NKEY_SEED: BUS.NATS_NKEY_SEED })).toThrow(
      /DIRECTORY_XKEY_SEED: must be set[\s\S]*DISPATCHER_XKEY: must be set/,
    );
    expect(() => loadConfig(ContactDirectoryConfig, { NATS_NKEY_SEED: 'SUnot-a-seed' })).toThrow(/NATS_NKEY_SEED/);
    const wrongKind = loadConfig(ContactDirectoryConfig, { DIRECTORY_XKEY_SEED: BUS.NATS_NKEY_SEED, DISPATCHER_XKEY: 'Xnot-a-key' });
    expect(() => assertKeys(wrongKind)).toThrow(/DIRECTORY_XKEY_SEED: must be an xkey seed[\s\S]*DISPATCHER_XKEY: must be a public xkey/);
    expect(() => assertKeys(wrongKind)).not.toThrow(BUS.NATS_NKEY_SEED);
    expect(() => assertKeys(loadConfig(ContactDirectoryConfig, { NODE_ENV: 'test', ...BUS }))).not.toThrow();
  });

  it('reads the grace period and suggestion limits', () => {
    const config = loadConfig(ContactDirectoryConfig, { WEBHOOK_SECRET_GRACE_SECONDS: '5', SUGGESTIONS_TIMEOUT_MS: '300' });
    expect(config.WEBHOOK_SECRET_GRACE_SECONDS).toBe(5);
    expect(config.SUGGESTIONS_TIMEOUT_MS).toBe(300);
    expect(loadConfig(ContactDirectoryConfig, {}).WEBHOOK_SECRET_GRACE_SECONDS).toBe(86_400);
  });

  it('builds the integrator client from the address policy and the extra CA file, refusing a file that cannot serve', async () => {
    const certificates = await createTestCertificates();
    try {
      const production = { NODE_ENV: 'production', DIRECTORY_ADMIN_TOKEN: LONG_TOKEN, DIRECTORY_SECRET_KEY: KEY, METRICS_TOKEN, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS, ...BUS };
      const config = loadConfig(ContactDirectoryConfig, { ...production, OUTBOUND_CA_FILE: certificates.caFile });
      expect(outboundClientOptions(config)).toMatchObject({ policy: { allowLoopback: false, allowPrivate: false }, extraCaCertificates: certificates.caCert });
      expect(outboundClientOptions(loadConfig(ContactDirectoryConfig, {})).extraCaCertificates).toBeUndefined();
      const missing = () => outboundClientOptions(loadConfig(ContactDirectoryConfig, { OUTBOUND_CA_FILE: `${certificates.dir}/missing.pem` }));
      expect(missing).toThrow(ConfigValidationError);
      expect(missing).toThrow(/OUTBOUND_CA_FILE: the CA file cannot be read/);
    } finally {
      await certificates.remove();
    }
  });

  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(ContactDirectoryConfig, (env) => {
      const config = readSharedSettings(loadConfig(ContactDirectoryConfig, env));
      assertKeys(config);
      outboundClientOptions(config);
    });
  });
});
