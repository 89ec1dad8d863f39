import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown, type Provider, type Type } from '@nestjs/common';
import { EventSubject } from '@availability/contracts';
import { AuthModule } from '@availability/auth';
import { jobQueuesOptions, JobsModule, RedisHealth } from '@availability/jobs';
import { BusHandlersModule, NatsHealth, NatsModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule, RetentionModule, retentionOptions } from '@availability/service-core';
import { NotificationServiceConfig } from './config/notification-service.config.js';
import { DevPushController } from './dev/dev-push.controller.js';
import { DevicesRepository, NOTIFICATIONS_SCHEMA } from './devices/devices.repository.js';
import { WorkerDevicesController } from './devices/worker-devices.controller.js';
import { DigestSweep } from './email/digest-sweep.js';
import { EmailRecoverySweep } from './email/email-recovery-sweep.js';
import { EmailRepository } from './email/email.repository.js';
import { answersReadEveryMs, EmailService } from './email/email.service.js';
import { Mailer } from './email/mailer.js';
import { NotificationEventsController } from './events/notification-events.controller.js';
import { NotificationRequestsController } from './events/notification-requests.controller.js';
import { FcmPushTransport } from './push/fcm.transport.js';
import { PushRepository } from './push/push.repository.js';
import { PushService } from './push/push.service.js';
import { PushRecoverySweep } from './push/push-recovery-sweep.js';
import { PUSH_TRANSPORT, type PushTransport, WEB_PUSH_TRANSPORT } from './push/push-transport.js';
import { RecordingPushTransport } from './push/recording.transport.js';
import { WorkerNotificationsController } from './push/worker-notifications.controller.js';
import { createWebPushTransport, webPushSettings } from './web-push/create-web-push.js';
import { WEB_PUSH_SETTINGS, WebPushController } from './web-push/web-push.controller.js';
import { WebPushSubscriptionsRepository } from './web-push/web-push-subscriptions.repository.js';
import { notificationRetention } from './retention/notification-retention.js';
import { SERVICE_MIGRATIONS } from './migrate.js';

export const SERVICE_NAME = 'notification-service';

@Injectable()
class PushTransportLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(PUSH_TRANSPORT) private readonly transport: PushTransport,
    @Inject(WEB_PUSH_TRANSPORT) private readonly webPush: PushTransport,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.transport.close?.();
    await this.webPush.close?.();
  }
}

export function createPushTransport(config: NotificationServiceConfig): PushTransport {
  if (config.PUSH_TRANSPORT === 'fcm') return FcmPushTransport.fromServiceAccount(config.FCM_SERVICE_ACCOUNT_JSON, config.PUSH_TTL_SECONDS);
  return new RecordingPushTransport(RecordingPushTransport.parseFailures(config.RECORDING_PUSH_FAILURES));
}

@Module({})
export class NotificationServiceModule {
  static forRoot(config: NotificationServiceConfig, transport: PushTransport = createPushTransport(config)): DynamicModule {
    const devEndpoints = transport instanceof RecordingPushTransport && config.DEV_ENDPOINTS !== 'false';
    const webPush = webPushSettings(config);
    const controllers: Array<Type<unknown>> = [WorkerDevicesController, WorkerNotificationsController, WebPushController, NotificationEventsController, NotificationRequestsController];
    const providers: Provider[] = [
      { provide: NotificationServiceConfig, useValue: config },
      { provide: PUSH_TRANSPORT, useValue: transport },
      { provide: WEB_PUSH_SETTINGS, useValue: webPush },
      { provide: WEB_PUSH_TRANSPORT, useValue: createWebPushTransport(config, webPush) },
      PushTransportLifecycle,
      DevicesRepository,
      WebPushSubscriptionsRepository,
      PushRepository,
      PushService,
      EmailRepository,
      Mailer,
      EmailService,
      DigestSweep,
      EmailRecoverySweep,
      PushRecoverySweep,
    ];
    if (devEndpoints) {
      controllers.push(DevPushController);
      providers.push({ provide: RecordingPushTransport, useValue: transport });
    }
    return {
      module: NotificationServiceModule,
      global: true,
      imports: [
        createLoggerModule(SERVICE_NAME, config),
        DatabaseModule.forService(config, SERVICE_MIGRATIONS),
        NatsModule.forService(SERVICE_NAME, config),
        BusHandlersModule.forService(SERVICE_NAME, config, {
          concurrency: config.EVENT_CONCURRENCY,
          readEveryMs: { [EventSubject.OfferResponseRecorded]: answersReadEveryMs(config.EMAIL_DIGEST_WINDOW_MS) },
          backoffMs: [500, 2_000, 5_000, 30_000, 120_000, 600_000],
          parkedEventsSchema: NOTIFICATIONS_SCHEMA,
        }),
        JobsModule.forRoot(() => jobQueuesOptions(config)),
        AuthModule.forRoot(() => ({ cacheTtlMs: config.CREDENTIAL_CACHE_TTL_MS, timeoutMs: config.DIRECTORY_TIMEOUT_MS })),
        RetentionModule.forRoot(() => retentionOptions(config, notificationRetention(config))),
        HealthModule.forRoot([DatabaseHealth, NatsHealth, RedisHealth]),
      ],
      controllers,
      providers,
      exports: [NotificationServiceConfig],
    };
  }
}
