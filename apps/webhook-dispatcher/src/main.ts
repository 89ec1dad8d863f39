import 'reflect-metadata';
import { startBusHandlers } from '@availability/messaging';
import { createHttpService, loadConfig, opaqueBearer, runMain, runServiceProcesses, startTracing } from '@availability/service-core';
import { mountQueueDashboard } from './admin/queue-dashboard.js';
import { resolveDispatcherConfig, WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { WebhookDispatcherModule } from './webhook-dispatcher.module.js';

/** Operator and portal requests are small JSON bodies. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function startWebhookDispatcher(config: WebhookDispatcherConfig) {
  const app = await createHttpService(WebhookDispatcherModule.forRoot(config), config, {
    service: 'webhook-dispatcher',
    bodyLimit: BODY_LIMIT_BYTES,
    openApi: {
      title: 'Availability Platform — Webhook Dispatcher',
      description:
        'Signed, retried, logged calls to integrators (offer responses, contacts added). The operator API lists deliveries ' +
        'with their attempts and redelivers them; the BullMQ dashboard is at /admin/queues (same bearer token). The portal ' +
        'API (portal user tokens, put_…) shows an organisation its own deliveries, endpoint state and test events.',
      version: '1.0',
    },
    configureOpenApi: (builder) =>
      builder
        .addBearerAuth(opaqueBearer('The operator token (DISPATCHER_ADMIN_TOKEN)'), 'admin')
        .addBearerAuth(opaqueBearer('A portal user’s sign-in token (put_…): the organisation’s own webhooks'), 'portal'),
  });
  await mountQueueDashboard(app);
  await startBusHandlers(app);
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('webhook-dispatcher', async () => {
    const config = resolveDispatcherConfig(loadConfig(WebhookDispatcherConfig));
    // Worker processes (SERVICE_PROCESSES > 1) read their settings from this environment: a development
    // key generated above must reach them too, or each would sign with a key of its own.
    if (!process.env.WEBHOOK_SIGNING_KEYS && !process.env.WEBHOOK_SIGNING_KEYS_FILE) process.env.WEBHOOK_SIGNING_KEYS = config.WEBHOOK_SIGNING_KEYS;
    await runServiceProcesses('webhook-dispatcher', config, () => {
      startTracing('webhook-dispatcher', config);
      return startWebhookDispatcher(config);
    });
  });
}
