import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { generateSigningKeysJson } from '@availability/webhook-signing';
import { resolveDispatcherConfig, signingKeys, WebhookDispatcherConfig } from './webhook-dispatcher.config.js';

const SIGNING_KEYS = generateSigningKeysJson('test-1');

describe('WebhookDispatcherConfig', () => {
  it('defaults to port 3003, a day of retries, and loopback allowed outside production', () => {
    const config = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, {}), {});
    expect(config).toMatchObject({ PORT: 3003, WEBHOOK_MAX_ATTEMPTS: 30, WEBHOOK_TIMEOUT_MS: 10_000, WEBHOOK_ALLOW_LOOPBACK: true, WEBHOOK_ALLOW_PRIVATE: false });
  });

  it('refuses loopback in production unless allowed, and short admin tokens', () => {
    const token = 'x'.repeat(32);
    const production = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: token, WEBHOOK_SIGNING_KEYS: SIGNING_KEYS }), {});
    expect(production.WEBHOOK_ALLOW_LOOPBACK).toBe(false);
    const short = loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: 'short-secret' });
    expect(() => resolveDispatcherConfig(short, {})).toThrow(ConfigValidationError);
    expect(() => resolveDispatcherConfig(short, {})).not.toThrow(/short-secret/);
    const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'false' };
    expect(resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, env), env).WEBHOOK_ALLOW_LOOPBACK).toBe(false);
  });

  it('needs signing keys in production, generates one elsewhere, and never shows key material in errors', () => {
    const token = 'x'.repeat(32);
    const unset = loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: token });
    expect(() => resolveDispatcherConfig(unset, {})).toThrow(/WEBHOOK_SIGNING_KEYS: must be set/);
    const broken = SIGNING_KEYS.replace('"kid":"test-1"', '"kid":"test 1"');
    const config = loadConfig(WebhookDispatcherConfig, { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: token, WEBHOOK_SIGNING_KEYS: broken });
    expect(() => resolveDispatcherConfig(config, {})).toThrow(ConfigValidationError);
    expect(() => resolveDispatcherConfig(config, {})).not.toThrow(/PRIVATE KEY/);
    const development = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, {}), {});
    expect(signingKeys(development).active.kid).toMatch(/^dev-/);
    expect(signingKeys(development).keySet()).toEqual(signingKeys(development).keySet());
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
