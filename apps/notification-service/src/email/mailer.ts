import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import type { MailMessage } from './email-content.js';
import { smtpTransportOptions } from './smtp-transport.js';

/** SMTP through nodemailer (pooled connections; TLS as smtp-transport.ts decides). */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly logger = new Logger('Mailer');
  private readonly transporter: Transporter;

  constructor(private readonly config: NotificationServiceConfig) {
    this.transporter = nodemailer.createTransport(smtpTransportOptions(config));
  }

  async send(message: MailMessage, messageId?: string): Promise<string> {
    const info = await this.transporter.sendMail({
      from: this.config.MAIL_FROM,
      to: message.to,
      subject: message.subject,
      text: message.text,
      headers: messageId ? { 'X-Notification-Id': messageId } : undefined,
      // A relay that trickles its answers resets every phase's timer: the whole send has its own limit.
      signal: AbortSignal.timeout(this.config.SMTP_TIMEOUT_MS),
    });
    this.logger.log(`sent "${message.subject}" to ${message.to.length} recipient(s)`);
    return info.messageId;
  }

  onModuleDestroy(): void {
    this.transporter.close();
  }
}

/**
 * The relay refusing this message or its recipients for good: a 5xx reply to MAIL FROM, RCPT TO or
 * DATA (503 only says the session was out of step). Not retried. The relay refusing *us* (STARTTLS
 * unanswered, credentials refused) is a fault of the relay or of our settings, not of the message: it
 * is retried like a broken connection, so e-mail waits while an operator puts it right.
 */
export function isPermanentSmtpFailure(error: unknown): boolean {
  const { code, responseCode } = error as { code?: string; responseCode?: number };
  const refusedMessage = code === 'EENVELOPE' || code === 'EMESSAGE';
  return refusedMessage && typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600 && responseCode !== 503;
}
