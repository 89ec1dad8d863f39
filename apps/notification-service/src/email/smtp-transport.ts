import type nodemailer from 'nodemailer';
import { caFileOf, ConfigValidationError, isLocalHost } from '@availability/service-core';
import type { NotificationServiceConfig } from '../config/notification-service.config.js';

type SmtpTransportOptions = Parameters<typeof nodemailer.createTransport>[0];
type SmtpSettings = Pick<NotificationServiceConfig, 'SMTP_URL' | 'SMTP_CA_FILE' | 'SMTP_ALLOW_PLAIN' | 'SMTP_TIMEOUT_MS'>;

/**
 * How the mailer reaches the relay. Its credentials travel in the AUTH command, so an `smtp://`
 * relay on another machine must upgrade with STARTTLS before AUTH, and one that does not offer it is
 * refused rather than sent the password in clear (nodemailer alone would carry on without TLS when a
 * man in the middle strips STARTTLS from the relay's answer). `smtps://` is TLS from the first byte.
 * The relay's certificate is always checked against the URL's host name. On this machine (a local
 * relay or the development mail catcher) TLS is used when offered; SMTP_CA_FILE requires it there
 * too, and SMTP_ALLOW_PLAIN lets a development mail catcher on another host go without. No wait on
 * the relay outlasts SMTP_TIMEOUT_MS (the mailer bounds each whole send by it too).
 */
export function smtpTransportOptions(config: SmtpSettings): SmtpTransportOptions {
  const url = new URL(config.SMTP_URL);
  const implicitTls = url.protocol === 'smtps:';
  if (config.SMTP_ALLOW_PLAIN && (implicitTls || config.SMTP_CA_FILE !== '')) {
    throw new ConfigValidationError([`SMTP_ALLOW_PLAIN: is set, but ${implicitTls ? 'SMTP_URL is an smtps:// URL (TLS)' : 'so is SMTP_CA_FILE (TLS required)'}`]);
  }
  const ca = caFileOf(config, 'SMTP_CA_FILE');
  const requireTls = !implicitTls && !config.SMTP_ALLOW_PLAIN && (ca !== undefined || !isLocalHost(url.hostname));
  return {
    url: config.SMTP_URL,
    pool: true,
    maxConnections: 4,
    requireTLS: requireTls,
    ignoreTLS: config.SMTP_ALLOW_PLAIN,
    tls: { rejectUnauthorized: true, ...(ca ? { ca } : {}) },
    // No phase waits longer than a whole send may take (nodemailer's own defaults reach 10 minutes).
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS,
    dnsTimeout: config.SMTP_TIMEOUT_MS,
  } as SmtpTransportOptions;
}
