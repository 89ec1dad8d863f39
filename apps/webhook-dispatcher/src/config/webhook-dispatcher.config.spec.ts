import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { createNkeyPair, createSealingKeys } from '@availability/messaging';
import { resolveDispatcherConfig, WebhookDispatcherConfig } from './webhook-dispatcher.config.js';

/** The bus settings production requires: the service's NATS nkey, its sealing seed and the directory's key. */
const BUS = { NATS_NKEY_SEED: createNkeyPair().seed, DISPATCHER_XKEY_SEED: createSealingKeys().seed, DIRECTORY_XKEY: createSealingKeys().publicKey };

describe('WebhookDispatcherConfig', () => {
  it('defaults to port 3003, a day of retries, and loopback allowed outside production', () => {
    const config = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, {}), {});
    expect(config).toMatchObject({ PORT: 3003, WEBHOOK_MAX_ATTEMPTS: 30, WEBHOOK_TIMEOUT_MS: 10_000, WEBHOOK_ALLOW_LOOPBACK: true, WEBHOOK_ALLOW_PRIVATE: false });
  });

  it('refuses loopback in production unless allowed, and short admin tokens', () => {
    const token = 'x'.repeat(32);
    const production = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: token, ...BUS }), {});
    expect(production.WEBHOOK_ALLOW_LOOPBACK).toBe(false);
    const short = loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: 'short-secret', ...BUS });
    expect(() => resolveDispatcherConfig(short, {})).toThrow(ConfigValidationError);
    expect(() => resolveDispatcherConfig(short, {})).not.toThrow(/short-secret/);
    const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'false' };
    expect(resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, env), env).WEBHOOK_ALLOW_LOOPBACK).toBe(false);
  });

  it('needs its sealing keys in production', () => {
    const production = { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: 'x'.repeat(32) };
    const noSealing = loadConfig(WebhookDispatcherConfig, { ...production, NATS_NKEY_SEED: BUS.NATS_NKEY_SEED });
    expect(() => resolveDispatcherConfig(noSealing, {})).toThrow(/DISPATCHER_XKEY_SEED: must be set[\s\S]*DIRECTORY_XKEY: must be set/);
    expect(() => resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, { ...production, ...BUS }), {})).not.toThrow();
  });

  it('takes a fraction of an hour as the disable-after window', () => {
    expect(loadConfig(WebhookDispatcherConfig, { WEBHOOK_DISABLE_AFTER_HOURS: '0.25' }).WEBHOOK_DISABLE_AFTER_HOURS).toBe(0.25);
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_DISABLE_AFTER_HOURS: '-1' })).toThrow(/WEBHOOK_DISABLE_AFTER_HOURS/);
  });

  it('rejects nonsense retry settings', () => {
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_TIMEOUT_MS: '5' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
  });
});
