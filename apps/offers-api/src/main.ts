import 'reflect-metadata';
import { OfferLimits } from '@availability/contracts';
import { createHttpService, loadConfig, opaqueBearer, runMain, runServiceProcesses, startTracing } from '@availability/service-core';
import { OffersApiConfig } from './config/offers-api.config.js';
import { OffersApiModule } from './offers-api.module.js';

export async function startOffersApi(config: OffersApiConfig) {
  const app = await createHttpService(OffersApiModule.forRoot(config), config, {
    service: 'offers-api',
    bodyLimit: OfferLimits.bodyBytes,
    openApi: {
      title: 'Availability Platform — Offers API',
      description:
        'Send offers of work to workers, read their responses, complete or withdraw offers (spec 4.1), and the worker app API. ' +
        'The portal API (portal user tokens, put_…) shows a sender organisation its own offers and completes or withdraws them.',
      version: '1.0',
    },
    configureOpenApi: (builder) =>
      builder
        .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key of your organisation (apk_…)' }, 'api-key')
        .addBearerAuth(opaqueBearer('An API key (apk_…) on the sender routes; a worker token (wkt_…) on the worker app routes'), 'bearer')
        .addBearerAuth(opaqueBearer('A portal user’s sign-in token (put_…): the organisation’s own offers'), 'portal'),
  });
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('offers-api', async () => {
    const config = loadConfig(OffersApiConfig);
    await runServiceProcesses('offers-api', config, () => {
      startTracing('offers-api', config);
      return startOffersApi(config);
    });
  });
}
