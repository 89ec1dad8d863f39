import { describe, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { assertStartsOrNamesTheProblems, readSharedSettings } from '@availability/testing';
import { smtpTransportOptions } from '../email/smtp-transport.js';
import { createPushTransport } from '../notification-service.module.js';
import { serviceAccountCredential } from '../push/fcm.transport.js';
import { webPushSettings } from '../web-push/create-web-push.js';
import { NotificationServiceConfig } from './notification-service.config.js';

describe('NotificationServiceConfig', () => {
  const start = (env: Record<string, string>) => {
    const config = readSharedSettings(loadConfig(NotificationServiceConfig, env));
    smtpTransportOptions(config);
    webPushSettings(config);
    // What createPushTransport starts for FCM, without a Firebase app per run.
    if (config.PUSH_TRANSPORT === 'fcm') serviceAccountCredential(config.FCM_SERVICE_ACCOUNT_JSON);
    else createPushTransport(config);
  };

  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(NotificationServiceConfig, start);
  });

  it('does the same with pushes through FCM, whatever its service account setting holds', () => {
    assertStartsOrNamesTheProblems(NotificationServiceConfig, start, { base: { PUSH_TRANSPORT: 'fcm', FCM_SERVICE_ACCOUNT_JSON: '{}' } });
  });
});
