import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '@availability/service-core';
import { createNkeyPair, createSealingKeys } from '@availability/messaging';
import { assertStartsOrNamesTheProblems, createTestCertificates, readSharedSettings } from '@availability/testing';
import { generateSigningKeysJson } from '@availability/webhook-signing';
import { endpointGateOptions, outboundClientOptions, resolveDispatcherConfig, signingKeys, WebhookDispatcherConfig } from './webhook-dispatcher.config.js';

const SIGNING_KEYS = generateSigningKeysJson('test-1');

/** The bus settings production requires: the service's NATS nkey, its sealing seed and the directory's key. */
const BUS = { NATS_NKEY_SEED: createNkeyPair().seed, DISPATCHER_XKEY_SEED: createSealingKeys().seed, DIRECTORY_XKEY: createSealingKeys().publicKey };

describe('WebhookDispatcherConfig', () => {
  it('defaults to port 3003, a day of retries, and loopback allowed outside production', () => {
    const config = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, {}), {});
    expect(config).toMatchObject({ PORT: 3003, WEBHOOK_MAX_ATTEMPTS: 30, WEBHOOK_TIMEOUT_MS: 10_000, WEBHOOK_ALLOW_LOOPBACK: true, WEBHOOK_ALLOW_PRIVATE: false });
  });

  it('refuses loopback in production, and admin tokens that are not real secrets', () => {
    const real = {
      NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: randomBytes(24).toString('base64url'), METRICS_TOKEN: randomBytes(24).toString('base64url'),
      WEBHOOK_SIGNING_KEYS: SIGNING_KEYS,
      ...BUS,
    };
    const production = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, real), {});
    expect(production.WEBHOOK_ALLOW_LOOPBACK).toBe(false);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...real, WEBHOOK_ALLOW_LOOPBACK: 'true' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK: is for development only/);
    const short = () => loadConfig(WebhookDispatcherConfig, { ...real, DISPATCHER_ADMIN_TOKEN: 'short-secret' });
    expect(short).toThrow(ConfigValidationError);
    expect(short).not.toThrow(/short-secret/);
    const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'false' };
    expect(resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, env), env).WEBHOOK_ALLOW_LOOPBACK).toBe(false);
  });

  it('needs signing keys in production, generates one elsewhere, and never shows key material in errors', () => {
    const production = { NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: randomBytes(24).toString('base64url'), METRICS_TOKEN: randomBytes(24).toString('base64url'), ...BUS };
    expect(() => loadConfig(WebhookDispatcherConfig, production)).toThrow(/WEBHOOK_SIGNING_KEYS: must be set/);
    const broken = SIGNING_KEYS.replace('"kid":"test-1"', '"kid":"test 1"');
    const config = loadConfig(WebhookDispatcherConfig, { ...production, WEBHOOK_SIGNING_KEYS: broken });
    expect(() => resolveDispatcherConfig(config, {})).toThrow(ConfigValidationError);
    expect(() => resolveDispatcherConfig(config, {})).not.toThrow(/PRIVATE KEY/);
    const development = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, {}), {});
    expect(signingKeys(development).active.kid).toMatch(/^dev-/);
    expect(signingKeys(development).keySet()).toEqual(signingKeys(development).keySet());
  });

  it('needs its sealing keys in production', () => {
    const production = {
      NODE_ENV: 'production', DISPATCHER_ADMIN_TOKEN: randomBytes(24).toString('base64url'), METRICS_TOKEN: randomBytes(24).toString('base64url'),
      WEBHOOK_SIGNING_KEYS: SIGNING_KEYS,
    };
    expect(() => loadConfig(WebhookDispatcherConfig, { ...production, NATS_NKEY_SEED: BUS.NATS_NKEY_SEED })).toThrow(
      /DISPATCHER_XKEY_SEED: must be set[\s\S]*DIRECTORY_XKEY: must be set/,
    );
    expect(() => resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, { ...production, ...BUS }), {})).not.toThrow();
  });

  it('takes a fraction of an hour as the disable-after window', () => {
    expect(loadConfig(WebhookDispatcherConfig, { WEBHOOK_DISABLE_AFTER_HOURS: '0.25' }).WEBHOOK_DISABLE_AFTER_HOURS).toBe(0.25);
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_DISABLE_AFTER_HOURS: '-1' })).toThrow(/WEBHOOK_DISABLE_AFTER_HOURS/);
  });

  it('keeps deliveries longer than the event stream keeps events, by a day or by the stream\'s age when that is shorter', () => {
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_DELIVERY_RETENTION_DAYS: '7.5' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS: fails longer than the event stream/);
    expect(loadConfig(WebhookDispatcherConfig, { WEBHOOK_DELIVERY_RETENTION_DAYS: '8' }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(8);
    // Minutes, as a soak runs: a one-minute stream, deliveries kept two minutes at least.
    const minutes = { EVENTS_STREAM_MAX_AGE_DAYS: String(1 / 1440) };
    expect(loadConfig(WebhookDispatcherConfig, { ...minutes, WEBHOOK_DELIVERY_RETENTION_DAYS: String(2 / 1440) }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBeCloseTo(2 / 1440);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...minutes, WEBHOOK_DELIVERY_RETENTION_DAYS: String(1.5 / 1440) })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
    expect(loadConfig(WebhookDispatcherConfig, { WEBHOOK_DEAD_LETTER_RETENTION_DAYS: '0' }).WEBHOOK_DEAD_LETTER_RETENTION_DAYS).toBe(0);
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_DEAD_LETTER_RETENTION_DAYS: '3' })).toThrow(/WEBHOOK_DEAD_LETTER_RETENTION_DAYS: fails zero, or longer/);
  });

  it('rejects nonsense retry settings', () => {
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
    expect(() => loadConfig(WebhookDispatcherConfig, { WEBHOOK_TIMEOUT_MS: '5' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
  });

  it('builds the delivery client from the address policy and the extra CA file, refusing a file that cannot serve', async () => {
    const certificates = await createTestCertificates();
    try {
      const config = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, { OUTBOUND_CA_FILE: certificates.caFile, WEBHOOK_CONCURRENCY: '7', WEBHOOK_INTAKE_CONCURRENCY: '5' }), {});
      expect(outboundClientOptions(config)).toEqual({
        policy: { allowLoopback: true, allowPrivate: false },
        connectionsPerOrigin: 12,
        extraCaCertificates: certificates.caCert,
      });
      expect(outboundClientOptions(loadConfig(WebhookDispatcherConfig, {})).extraCaCertificates).toBeUndefined();
      await writeFile(`${certificates.dir}/not-a-ca.pem`, 'hello');
      for (const [file, why] of [[`${certificates.dir}/missing.pem`, /cannot be read/], [`${certificates.dir}/not-a-ca.pem`, /holds no PEM certificate/]] as const) {
        const build = () => outboundClientOptions(loadConfig(WebhookDispatcherConfig, { OUTBOUND_CA_FILE: file }));
        expect(build).toThrow(ConfigValidationError);
        expect(build).toThrow(why);
        expect(build).toThrow(/OUTBOUND_CA_FILE/);
      }
    } finally {
      await certificates.remove();
    }
  });

  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(WebhookDispatcherConfig, (env) => {
      const config = readSharedSettings(resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig, env), env));
      outboundClientOptions(config);
      endpointGateOptions(config);
    });
  });
});
