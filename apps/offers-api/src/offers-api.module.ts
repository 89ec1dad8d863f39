import { type DynamicModule, Module } from '@nestjs/common';
import { EventStreamModule, NatsHealth, NatsModule, OutboxModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule, RetentionModule, retentionOptions } from '@availability/service-core';
import { AuthModule } from '@availability/auth';
import { OffersApiConfig } from './config/offers-api.config.js';
import { DirectoryClient } from './directory/directory.client.js';
import { OffersController } from './offers/offers.controller.js';
import { OFFERS_SCHEMA, OffersRepository } from './offers/offers.repository.js';
import { OffersService } from './offers/offers.service.js';
import { OfferWriter } from './offers/offer-writer.js';
import { WorkerOffersController } from './worker-app/worker-offers.controller.js';
import { PortalOffers } from './portal-offers/portal-offers.js';
import { PortalOffersController } from './portal-offers/portal-offers.controller.js';
import { offersRetention } from './retention/offers-retention.js';
import { SERVICE_MIGRATIONS } from './migrate.js';

export const SERVICE_NAME = 'offers-api';

@Module({})
export class OffersApiModule {
  static forRoot(config: OffersApiConfig): DynamicModule {
    return {
      module: OffersApiModule,
      global: true,
      imports: [
        createLoggerModule(SERVICE_NAME, config),
        DatabaseModule.forService(config, SERVICE_MIGRATIONS),
        NatsModule.forService(SERVICE_NAME, config),
        EventStreamModule.forService(config),
        OutboxModule.forRoot(() => ({
          schema: OFFERS_SCHEMA,
          subjectPrefix: config.NATS_SUBJECT_PREFIX,
          enabled: config.OUTBOX_RELAY_ENABLED,
        })),
        AuthModule.forRoot(() => ({ cacheTtlMs: config.CREDENTIAL_CACHE_TTL_MS, timeoutMs: config.DIRECTORY_TIMEOUT_MS })),
        RetentionModule.forRoot(() => retentionOptions(config, offersRetention(config))),
        HealthModule.forRoot([DatabaseHealth, NatsHealth]),
      ],
      controllers: [OffersController, WorkerOffersController, PortalOffersController],
      providers: [
        { provide: OffersApiConfig, useValue: config },
        DirectoryClient,
        OffersRepository,
        OfferWriter,
        OffersService,
        PortalOffers,
      ],
      exports: [OffersApiConfig],
    };
  }
}
