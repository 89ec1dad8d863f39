import 'reflect-metadata';
import { startBusHandlers } from '@availability/messaging';
import { createHttpService, loadConfig, opaqueBearer, runMain, runServiceProcesses, startTracing } from '@availability/service-core';
import { NotificationServiceConfig } from './config/notification-service.config.js';
import { NotificationServiceModule } from './notification-service.module.js';

/** Device registrations carry tokens of up to 4 KiB; nothing else is large. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function startNotificationService(config: NotificationServiceConfig) {
  const app = await createHttpService(NotificationServiceModule.forRoot(config), config, {
    service: 'notification-service',
    bodyLimit: BODY_LIMIT_BYTES,
    openApi: {
      title: 'Availability Platform — Notification service',
      description: 'Worker devices (FCM tokens) and the worker’s notification list. Pushes and e-mails are sent from events.',
      version: '1.0',
    },
    configureOpenApi: (builder) => builder.addBearerAuth(opaqueBearer('A worker token (wkt_…)'), 'bearer'),
  });
  await startBusHandlers(app);
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test, benchmark or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('notification-service', async () => {
    const config = loadConfig(NotificationServiceConfig);
    await runServiceProcesses('notification-service', config, () => {
      startTracing('notification-service', config);
      return startNotificationService(config);
    });
  });
}
