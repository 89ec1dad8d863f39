import { SmtpSink, startTestPlatform, type TestPlatform } from '@availability/testing';
import type { JourneyEnvironment } from '@availability/platform-client';

export const JOURNEY_APPS = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'];

const INTEGRATOR_SECRET = 'journey-integrator-secret-0123456789';
/** The dispatcher's operator token in the journey's platform. */
export const JOURNEY_DISPATCHER_ADMIN_TOKEN = 'journey-dispatcher-admin-token-0123456789';

/** Every service on a private database and NATS namespace, with an SMTP sink, for the journey tests. */
export interface JourneyPlatform {
  platform: TestPlatform;
  mail: SmtpSink;
  environment(adminToken: string): JourneyEnvironment;
  stop(): Promise<void>;
}

export async function startJourneyPlatform(): Promise<JourneyPlatform> {
  const mail = await SmtpSink.start();
  const platform = await startTestPlatform(JOURNEY_APPS, {
    INTEGRATOR_SECRET,
    DISPATCHER_ADMIN_TOKEN: JOURNEY_DISPATCHER_ADMIN_TOKEN,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    SMTP_URL: mail.url,
    // Short enough that the e-mail steps and webhook retries finish within a test.
    EMAIL_DIGEST_WINDOW_MS: '1000',
    WEBHOOK_BACKOFF_BASE_MS: '200',
  }).catch(async (error: unknown) => {
    await mail.close();
    throw error;
  });
  return {
    platform,
    mail,
    environment: (adminToken) => ({
      urls: {
        contactDirectory: platform.url('contact-directory'),
        offersApi: platform.url('offers-api'),
        notificationService: platform.url('notification-service'),
        exampleIntegrator: platform.url('example-integrator'),
      },
      integratorBaseUrl: platform.url('example-integrator'),
      integratorSecret: INTEGRATOR_SECRET,
      adminToken,
      mailCount: async (address) => mail.to(address).length,
    }),
    async stop() {
      await platform.stop();
      await mail.close();
    },
  };
}
