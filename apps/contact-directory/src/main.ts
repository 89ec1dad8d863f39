import 'reflect-metadata';
import { startBusHandlers } from '@availability/messaging';
import { createHttpService, loadConfig, opaqueBearer, runMain, runServiceProcesses, startTracing } from '@availability/service-core';
import { assertKeys, ContactDirectoryConfig } from './config/contact-directory.config.js';
import { ContactDirectoryModule } from './contact-directory.module.js';

/** Largest admin request: a bulk of 10,000 workers with long names and e-mail addresses. */
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export async function startContactDirectory(config: ContactDirectoryConfig) {
  assertKeys(config);
  const app = await createHttpService(ContactDirectoryModule.forRoot(config), config, {
    service: 'contact-directory',
    bodyLimit: BODY_LIMIT_BYTES,
    openApi: {
      title: 'Availability Platform — Contact Directory',
      description:
        'Organisations, their portal users, workers and credentials; the company profile (webhook set-up), contact ' +
        'suggestions, invitations and workers’ contacts. The admin API is for platform operators, the portal API for ' +
        'portal users (put_… tokens), the worker API for the worker app (wkt_… tokens); other services ask the ' +
        'directory over NATS request/reply (libs/contracts directory-messages).',
      version: '1.0',
    },
    configureOpenApi: (builder) =>
      builder
        .addBearerAuth(opaqueBearer('The operator token (DIRECTORY_ADMIN_TOKEN)'), 'admin')
        .addBearerAuth(opaqueBearer('A portal user’s sign-in token (put_…)'), 'portal')
        .addBearerAuth(opaqueBearer('A worker token (wkt_…)'), 'bearer'),
  });
  await startBusHandlers(app);
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('contact-directory', async () => {
    const config = loadConfig(ContactDirectoryConfig);
    // Worker processes (SERVICE_PROCESSES > 1) read their settings from this environment: a development
    // signing key generated here must reach them too, or each would sign with a key of its own.
    assertKeys(config);
    if (!process.env.WEBHOOK_SIGNING_KEYS && !process.env.WEBHOOK_SIGNING_KEYS_FILE) process.env.WEBHOOK_SIGNING_KEYS = config.WEBHOOK_SIGNING_KEYS;
    await runServiceProcesses('contact-directory', config, () => {
      startTracing('contact-directory', config);
      return startContactDirectory(config);
    });
  });
}
