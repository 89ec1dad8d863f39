import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { createTestCertificates, type TestCertificates } from '@availability/testing';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { smtpTransportOptions } from './smtp-transport.js';

const settings = (SMTP_URL: string, more: { SMTP_CA_FILE?: string; SMTP_ALLOW_PLAIN?: boolean } = {}) => ({ SMTP_URL, SMTP_CA_FILE: '', SMTP_ALLOW_PLAIN: false, SMTP_TIMEOUT_MS: 15_000, ...more });

let certificates: TestCertificates;
beforeAll(async () => {
  certificates = await createTestCertificates();
});
afterAll(async () => {
  await certificates?.remove();
});

describe('how the mailer reaches the relay', () => {
  it('requires STARTTLS from an smtp:// relay on another machine, before its credentials are sent', () => {
    for (const url of ['smtp://user:pass@mail.example:587', 'smtp://mail.example', 'smtp://10.0.0.5:25', 'smtp://[2001:db8::1]:587']) {
      expect(smtpTransportOptions(settings(url))).toMatchObject({ url, requireTLS: true, ignoreTLS: false, tls: { rejectUnauthorized: true } });
    }
  });

  it('waits on no phase longer than SMTP_TIMEOUT_MS', () => {
    const options = smtpTransportOptions({ ...settings('smtp://mail.example'), SMTP_TIMEOUT_MS: 4_000 });
    expect(options).toMatchObject({ connectionTimeout: 4_000, greetingTimeout: 4_000, socketTimeout: 4_000, dnsTimeout: 4_000 });
  });

  it('speaks TLS from the first byte to an smtps:// relay, and checks its certificate', () => {
    const options = smtpTransportOptions(settings('smtps://user:pass@mail.example:465'));
    expect(options).toMatchObject({ requireTLS: false, ignoreTLS: false, tls: { rejectUnauthorized: true } });
  });

  it('uses TLS when offered by a relay on this machine, and requires it there with SMTP_CA_FILE', () => {
    for (const url of ['smtp://127.0.0.1:2525', 'smtp://localhost:25', 'smtp://[::1]:25']) {
      expect(smtpTransportOptions(settings(url))).toMatchObject({ requireTLS: false, ignoreTLS: false });
    }
    const options = smtpTransportOptions(settings('smtp://localhost:587', { SMTP_CA_FILE: certificates.caFile }));
    expect(options).toMatchObject({ requireTLS: true, tls: { ca: certificates.caCert } });
  });

  it('goes without TLS to another machine only when SMTP_ALLOW_PLAIN says so, which cannot go with TLS settings', () => {
    expect(smtpTransportOptions(settings('smtp://mailpit:1025', { SMTP_ALLOW_PLAIN: true }))).toMatchObject({ requireTLS: false, ignoreTLS: true });
    expect(() => smtpTransportOptions(settings('smtps://mail.example', { SMTP_ALLOW_PLAIN: true }))).toThrow(/SMTP_ALLOW_PLAIN: is set, but SMTP_URL is an smtps:\/\/ URL/);
    expect(() => smtpTransportOptions(settings('smtp://mail.example', { SMTP_ALLOW_PLAIN: true, SMTP_CA_FILE: certificates.caFile }))).toThrow(/SMTP_ALLOW_PLAIN: is set, but so is SMTP_CA_FILE/);
  });

  it('stops the start when SMTP_CA_FILE cannot serve, naming the setting', () => {
    expect(() => smtpTransportOptions(settings('smtp://mail.example', { SMTP_CA_FILE: `${certificates.dir}/missing.pem` }))).toThrow(/SMTP_CA_FILE: the CA file cannot be read/);
    expect(() => smtpTransportOptions(settings('smtp://mail.example', { SMTP_CA_FILE: `${certificates.dir}/localhost.key` }))).toThrow(/SMTP_CA_FILE: the CA file holds no PEM certificate/);
  });
});

describe('the SMTP settings', () => {
  it('take smtp:// and smtps:// URLs that name a host, and nothing else', () => {
    for (const SMTP_URL of ['smtp://user:p%40ss@mail.example:587', 'smtps://mail.example', 'smtp://127.0.0.1:2525']) {
      expect(loadConfig(NotificationServiceConfig, { SMTP_URL }).SMTP_URL).toBe(SMTP_URL);
    }
    for (const SMTP_URL of ['http://mail.example', 'mail.example:25', 'smtp://', 'smtp://user@:25', 'smtp:mail.example']) {
      expect(() => loadConfig(NotificationServiceConfig, { SMTP_URL })).toThrow(/SMTP_URL: fails an smtp:\/\/ or smtps:\/\/ URL naming its host/);
    }
  });

  it('refuse SMTP_ALLOW_PLAIN in production', () => {
    expect(() => loadConfig(NotificationServiceConfig, { NODE_ENV: 'production', SMTP_ALLOW_PLAIN: 'true' })).toThrow(/SMTP_ALLOW_PLAIN: is for development only/);
    expect(loadConfig(NotificationServiceConfig, { SMTP_ALLOW_PLAIN: 'true' }).SMTP_ALLOW_PLAIN).toBe(true);
  });
});
