import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { generateVapidKeyPair, vapidKeys } from './vapid.js';

const subject = 'mailto:ops@availability.example';

describe('VAPID settings', () => {
  it('are off when none is set, and read when all are', () => {
    expect(vapidKeys({ VAPID_PUBLIC_KEY: '', VAPID_PRIVATE_KEY: '', VAPID_SUBJECT: '' })).toBeUndefined();
    const pair = generateVapidKeyPair();
    expect(vapidKeys({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey, VAPID_SUBJECT: subject })).toEqual({ ...pair, subject });
  });

  it('refuse some without the others, and a public key that is not the private key’s, without showing either', () => {
    const pair = generateVapidKeyPair();
    const other = generateVapidKeyPair();
    expect(() => vapidKeys({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: '', VAPID_SUBJECT: subject })).toThrow(/VAPID_PRIVATE_KEY: must be set/);
    let message = '';
    try {
      vapidKeys({ VAPID_PUBLIC_KEY: other.publicKey, VAPID_PRIVATE_KEY: pair.privateKey, VAPID_SUBJECT: subject });
    } catch (error) {
      message = String((error as Error & { problems?: string[] }).problems ?? (error as Error).message);
    }
    expect(message).toMatch(/VAPID_PUBLIC_KEY: is not the public key of VAPID_PRIVATE_KEY/);
    expect(message).not.toContain(pair.privateKey);
    expect(message).not.toContain(other.publicKey);
  });

  it('are required in production, where loopback push services are refused', () => {
    const production = { NODE_ENV: 'production', PUSH_TRANSPORT: 'fcm', DEV_ENDPOINTS: 'false' };
    expect(() => loadConfig(NotificationServiceConfig, production)).toThrow(/VAPID_PUBLIC_KEY: must be set/);
    expect(() => loadConfig(NotificationServiceConfig, production)).toThrow(/VAPID_PRIVATE_KEY: must be set/);
    expect(() => loadConfig(NotificationServiceConfig, production)).toThrow(/VAPID_SUBJECT: must be set/);
    expect(() => loadConfig(NotificationServiceConfig, { ...production, WEB_PUSH_ALLOW_LOOPBACK: 'true' })).toThrow(/WEB_PUSH_ALLOW_LOOPBACK: is for development only/);
    expect(() => loadConfig(NotificationServiceConfig, { VAPID_SUBJECT: 'ops@availability.example' })).toThrow(/VAPID_SUBJECT: fails matches/);
    expect(() => loadConfig(NotificationServiceConfig, { VAPID_PUBLIC_KEY: 'short' })).toThrow(/VAPID_PUBLIC_KEY: fails matches/);
    const config = loadConfig(NotificationServiceConfig, {});
    expect(config).toMatchObject({ VAPID_PUBLIC_KEY: '', WEB_PUSH_ALLOW_LOOPBACK: 'false', WEB_PUSH_TIMEOUT_MS: 10_000 });
  });
});
