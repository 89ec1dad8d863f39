import 'reflect-metadata';
import { createHttpService, loadConfig, runMain, startTracing } from '@availability/service-core';
import { ExampleIntegratorConfig } from './config/example-integrator.config.js';
import { ExampleIntegratorModule } from './example-integrator.module.js';

const BODY_LIMIT_BYTES = 256 * 1024;

export async function startExampleIntegrator(config: ExampleIntegratorConfig) {
  const app = await createHttpService(ExampleIntegratorModule.forRoot(config), config, {
    service: 'example-integrator',
    rateLimit: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Signatures cover the raw bytes, never re-serialised JSON.
    keepRawBodies: true,
    openApi: {
      title: 'Example integrator',
      description: 'A reference implementation of the endpoints an integrator serves to the Availability Platform (spec 4.2).',
      version: '1.0',
    },
  });
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('example-integrator', async () => {
    const config = loadConfig(ExampleIntegratorConfig);
    startTracing('example-integrator', config);
    await startExampleIntegrator(config);
  });
}
