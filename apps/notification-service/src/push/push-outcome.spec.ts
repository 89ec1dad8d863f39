import { describe, expect, it } from '@jest/globals';
import { webPushFailure, webPushResult } from '../web-push/web-push-errors.js';
import { channelOf, pushOutcome } from './push-outcome.js';

const fcmFailure = (errorCode: string, errorMessage = '') => ({ success: false, errorCode, errorMessage });

describe('push outcome per channel', () => {
  it('routes web subscriptions to Web Push and devices to FCM', () => {
    expect(channelOf('web')).toBe('web-push');
    expect(channelOf('ios')).toBe('fcm');
    expect(channelOf('android')).toBe('fcm');
  });

  it('Web Push: 2xx is sent; 404 and 410 remove the subscription, as an unregistered FCM token is removed', () => {
    expect(pushOutcome('web-push', webPushResult(201, { location: 'https://push.example/m/1' }, ''), false)).toBe('sent');
    expect(webPushResult(201, { location: 'https://push.example/m/1' }, '').messageId).toBe('https://push.example/m/1');
    expect(pushOutcome('web-push', webPushResult(410, {}, 'gone'), false)).toBe('token_removed');
    expect(pushOutcome('web-push', webPushResult(404, {}, 'expired'), true)).toBe('token_removed');
    expect(pushOutcome('fcm', fcmFailure('messaging/registration-token-not-registered'), false)).toBe('token_removed');
    expect(pushOutcome('web-push', webPushFailure('forbidden-address', '10.0.0.1 is a private network address'), false)).toBe('token_removed');
  });

  it('Web Push: 429, 5xx and failures to connect are retried like FCM’s 503, until the last attempt', () => {
    for (const result of [webPushResult(429, {}, ''), webPushResult(500, {}, ''), webPushResult(503, {}, ''), webPushFailure('timeout', 't'), webPushFailure('unreachable', 'r'), webPushFailure('dns', 'd')]) {
      expect(pushOutcome('web-push', result, false)).toBe('retrying');
      expect(pushOutcome('web-push', result, true)).toBe('failed');
    }
    expect(pushOutcome('fcm', fcmFailure('messaging/server-unavailable'), false)).toBe('retrying');
    expect(webPushResult(503, { 'retry-after': '7' }, '').retryAfterMs).toBe(7000);
    expect(webPushResult(429, { 'retry-after': ['3', '9'] }, '').retryAfterMs).toBe(3000);
    expect(webPushResult(400, { 'retry-after': '7' }, '').retryAfterMs).toBeUndefined();
  });

  it('Web Push: 400, 401, 403 and 413 fail without removing anything (a wrong VAPID key must not empty the registry)', () => {
    for (const status of [400, 401, 403, 413, 301]) expect(pushOutcome('web-push', webPushResult(status, {}, ''), false)).toBe('failed');
    expect(pushOutcome('web-push', webPushFailure('encryption', 'bad key'), false)).toBe('failed');
    expect(pushOutcome('web-push', { success: false, errorCode: 'web-push/not-configured' }, false)).toBe('failed');
  });

  it('each channel reads only its own codes', () => {
    // An FCM code reaching the Web Push rules (or the other way round) is not understood: it fails, nothing is removed.
    expect(pushOutcome('web-push', fcmFailure('messaging/registration-token-not-registered'), false)).toBe('failed');
    expect(pushOutcome('fcm', webPushResult(410, {}, ''), false)).toBe('failed');
  });

  it('a transport that threw is retried, then failed on the last attempt', () => {
    expect(pushOutcome('web-push', 'thrown', false)).toBe('retrying');
    expect(pushOutcome('fcm', 'thrown', true)).toBe('failed');
  });
});
