import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@availability/auth';
import { jobQueuesOptions, JobsModule, RedisHealth } from '@availability/jobs';
import { BusHandlersModule, EventStreamModule, NatsHealth, NatsModule, OutboxModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule, RetentionModule, retentionOptions } from '@availability/service-core';
import { AdminAuthGuard } from './admin/admin-auth.js';
import { DeliveriesController } from './admin/deliveries.controller.js';
import { SigningKeyRing } from '@availability/webhook-signing';
import { endpointGateOptions, signingKeys, WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveriesRepository, DISPATCHER_SCHEMA } from './delivery/deliveries.repository.js';
import { Deliverer } from './delivery/deliverer.js';
import { PostgresEndpointHealthStore } from './delivery/endpoint-health.store.js';
import { EventIntake } from './delivery/event-intake.js';
import { DeliveryRecorder } from './delivery/delivery-recorder.js';
import { HeldDeliveries } from './delivery/held-deliveries.js';
import { RecoverySweep } from './delivery/recovery-sweep.js';
import { RetryQueue } from './delivery/retry-queue.js';
import { RetryWorker } from './delivery/retry-worker.js';
import { TargetResolver } from './delivery/target-resolver.js';
import { WebhookSender } from './delivery/webhook-sender.js';
import { WebhookEventsController } from './delivery/webhook-events.controller.js';
import { EndpointGate } from './domain/endpoint-gate.js';
import { DeliveryLog } from './delivery-log/delivery-log.js';
import { EndpointStates } from './delivery-log/endpoint-states.js';
import { TestEvents } from './delivery-log/test-events.js';
import { KeySetController } from './keys/key-set.controller.js';
import { PortalWebhooksGuard } from './portal/portal-auth.js';
import { PortalWebhooks } from './portal/portal-webhooks.js';
import { PortalWebhooksController } from './portal/portal-webhooks.controller.js';
import { PortalWebhooksPolicy } from './portal/portal-webhooks.policy.js';
import { dispatcherRetention } from './retention/dispatcher-retention.js';
import { SERVICE_MIGRATIONS } from './migrate.js';

export const SERVICE_NAME = 'webhook-dispatcher';

@Module({})
export class WebhookDispatcherModule {
  static forRoot(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      global: true,
      imports: [
        createLoggerModule(SERVICE_NAME, config),
        DatabaseModule.forService(config, SERVICE_MIGRATIONS),
        NatsModule.forService(SERVICE_NAME, config),
        // Portal user tokens, checked by contact-directory over NATS and cached, as every service checks credentials.
        AuthModule.forRoot(() => ({ cacheTtlMs: config.CREDENTIAL_CACHE_TTL_MS, timeoutMs: config.DIRECTORY_TIMEOUT_MS, operatorTokens: [config.DISPATCHER_ADMIN_TOKEN] })),
        EventStreamModule.forService(config),
        BusHandlersModule.forService(SERVICE_NAME, config, {
          concurrency: config.WEBHOOK_INTAKE_CONCURRENCY,
          backoffMs: [1_000, 5_000, 15_000, 60_000],
          ackWaitMs: config.WEBHOOK_INTAKE_ACK_WAIT_MS,
          parkedEventsSchema: DISPATCHER_SCHEMA,
        }),
        OutboxModule.forRoot(() => ({
          schema: DISPATCHER_SCHEMA,
          subjectPrefix: config.NATS_SUBJECT_PREFIX,
          enabled: config.OUTBOX_RELAY_ENABLED,
        })),
        JobsModule.forRoot(() => jobQueuesOptions(config)),
        RetentionModule.forRoot(() => retentionOptions(config, dispatcherRetention(config))),
        HealthModule.forRoot([DatabaseHealth, NatsHealth, RedisHealth]),
      ],
      controllers: [DeliveriesController, PortalWebhooksController, KeySetController, WebhookEventsController],
      providers: [
        { provide: WebhookDispatcherConfig, useValue: config },
        { provide: SigningKeyRing, useValue: signingKeys(config) },
        AdminAuthGuard,
        DeliveriesRepository,
        TargetResolver,
        PostgresEndpointHealthStore,
        { provide: EndpointGate, useFactory: (store: PostgresEndpointHealthStore) => new EndpointGate(endpointGateOptions(config), store), inject: [PostgresEndpointHealthStore] },
        WebhookSender,
        RetryQueue,
        HeldDeliveries,
        Deliverer,
        DeliveryRecorder,
        EventIntake,
        RetryWorker,
        RecoverySweep,
        DeliveryLog,
        EndpointStates,
        TestEvents,
        PortalWebhooksGuard,
        { provide: PortalWebhooksPolicy, useFactory: () => new PortalWebhooksPolicy(Date.now, config.WEBHOOK_DELIVERY_RETENTION_DAYS) },
        PortalWebhooks,
      ],
      exports: [WebhookDispatcherConfig],
    };
  }
}
