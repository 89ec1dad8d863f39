import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import type { MailMessage } from './email-content.js';

/** SMTP through nodemailer (pooled connections). */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly logger = new Logger('Mailer');
  private readonly transporter: Transporter;

  constructor(private readonly config: NotificationServiceConfig) {
    this.transporter = nodemailer.createTransport({ url: config.SMTP_URL, pool: true, maxConnections: 4 } as Parameters<typeof nodemailer.createTransport>[0]);
  }

  async send(message: MailMessage, messageId?: string): Promise<string> {
    const info = await this.transporter.sendMail({
      from: this.config.MAIL_FROM,
      to: message.to,
      subject: message.subject,
      text: message.text,
      headers: messageId ? { 'X-Notification-Id': messageId } : undefined,
    });
    this.logger.log(`sent "${message.subject}" to ${message.to.length} recipient(s)`);
    return info.messageId;
  }

  onModuleDestroy(): void {
    this.transporter.close();
  }
}

/** SMTP 5xx: the server will never accept this message (bad address, rejected); do not retry. */
export function isPermanentSmtpFailure(error: unknown): boolean {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
