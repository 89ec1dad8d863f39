import { type DynamicModule, Module } from '@nestjs/common';
import { createLoggerModule, HealthModule } from '@availability/service-core';
import { ExampleIntegratorConfig } from './config/example-integrator.config.js';
import { ReceivedStore } from './webhooks/received.store.js';
import { ReceivedTokenGuard } from './webhooks/received-token.guard.js';
import { SignatureGuard } from './webhooks/signature.guard.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';

export const SERVICE_NAME = 'example-integrator';

@Module({})
export class ExampleIntegratorModule {
  static forRoot(config: ExampleIntegratorConfig): DynamicModule {
    return {
      module: ExampleIntegratorModule,
      global: true,
      // No database, NATS or Redis: /health is the process itself.
      imports: [createLoggerModule(SERVICE_NAME, config), HealthModule.forRoot([])],
      controllers: [WebhooksController],
      providers: [{ provide: ExampleIntegratorConfig, useValue: config }, ReceivedStore, SignatureGuard, ReceivedTokenGuard],
    };
  }
}
