/**
 * The services that make up the platform, in start order, with their local ports. The launcher
 * starts them from here, so adding a service to the platform means adding one line.
 */
export interface PlatformService {
  app: string;
  port: number;
  /** Shown next to the address when the service is up. */
  summary: string;
  /** Settings this service needs locally beyond the shared environment. */
  env?: Record<string, string>;
}

export const PLATFORM_SERVICES: PlatformService[] = [
  // No TRUST_PROXY: on one machine the portal's address is every local client's too, and any of them
  // could name the address it is counted as. Sign-in links are counted per client as the portal's.
  { app: 'contact-directory', port: 3001, summary: 'organisations, users, workers, credentials, company profile, suggestions' },
  { app: 'offers-api', port: 3000, summary: 'sender offers API (spec 4.1) and worker app API' },
  // Sign-in links in its e-mails point at the portal below.
  { app: 'notification-service', port: 3002, summary: 'device registry, push to workers, e-mail', env: { PORTAL_URL: 'http://localhost:3005' } },
  // Integrators run on this machine in development, so calls to loopback are allowed here.
  { app: 'webhook-dispatcher', port: 3003, summary: 'signed, retried webhooks to integrators; /admin, /admin/queues', env: { WEBHOOK_ALLOW_LOOPBACK: 'true' } },
  { app: 'example-integrator', port: 3004, summary: 'a reference integrator service (spec 4.2)' },
  // Last: it stands in front of the others (their addresses are its defaults).
  { app: 'portal', port: 3005, summary: 'the portal and worker app in the browser (sign-in links arrive in the mail catcher)' },
];

/** Local SMTP for development e-mail (the notification service's default SMTP_URL). */
export const MAIL_CATCHER_PORT = 2525;

/** Where the mail catcher lists what arrived (Mailpit's port and API, as in docker-compose.yml). */
export const MAIL_CATCHER_HTTP_PORT = 8025;

/**
 * The launcher's own authenticated nats-server (not the default 4222, so an unauthenticated NATS
 * left running there is never used by mistake), and where its keys and store live (out of git).
 */
export const DEV_NATS_PORT = Number(process.env.DEV_NATS_PORT ?? 4223);
export const DEV_BUS_DIR = '.nats/dev';
