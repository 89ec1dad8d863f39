/**
 * The services that make up the platform, in start order, with their local ports. The launcher
 * starts them from here, so adding a service to the platform means adding one line.
 */
export interface PlatformService {
  app: string;
  port: number;
  /** Shown next to the address when the service is up. */
  summary: string;
}

export const PLATFORM_SERVICES: PlatformService[] = [
  { app: 'contact-directory', port: 3001, summary: 'organisations, users, workers, credentials, company profile, suggestions' },
  { app: 'offers-api', port: 3000, summary: 'sender offers API (spec 4.1) and worker app API' },
  { app: 'notification-service', port: 3002, summary: 'device registry, push to workers, e-mail' },
];

/** Local SMTP for development e-mail (the notification service's default SMTP_URL). */
export const MAIL_CATCHER_PORT = 2525;
