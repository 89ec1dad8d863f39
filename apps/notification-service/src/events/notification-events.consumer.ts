import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import {
  EventSubject,
  type InviteCreatedEvent,
  type OfferCompletedEvent,
  type OfferCreatedEvent,
  type OfferResponseRecordedEvent,
  type OfferWithdrawnEvent,
  type WebhookEndpointDisabledEvent,
} from '@availability/contracts';
import {
  BUS_ROLES,
  DurableConsumer,
  EVENT_STREAM_READY,
  JETSTREAM,
  JETSTREAM_MANAGER,
  type JetStreamClient,
  type JetStreamManager,
  ParkedEventStore,
} from '@availability/messaging';
import { DataSource } from 'typeorm';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { NOTIFICATIONS_SCHEMA } from '../devices/devices.repository.js';
import { EmailService } from '../email/email.service.js';
import { PushService } from '../push/push.service.js';

/** The durable consumer and its events, as the bus permissions allow them (libs/messaging bus-permissions.ts). */
const CONSUMER = BUS_ROLES['notification-service'].consumes;
export const DURABLE_NAME = CONSUMER.durableName;

/** Never reorder (in bus-permissions.ts): each subject's JetStream consumer is named by its position (`notification-service-<n>`). */
export const CONSUMED_SUBJECTS = CONSUMER.subjects;

/** The service's one durable JetStream consumer: offer, invite and webhook events → pushes and e-mails. */
@Injectable()
export class NotificationEventsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('NotificationEvents');
  private consumer?: DurableConsumer;

  constructor(
    private readonly config: NotificationServiceConfig,
    @Inject(JETSTREAM) private readonly js: JetStreamClient,
    @Inject(JETSTREAM_MANAGER) private readonly jsm: JetStreamManager,
    @Inject(EVENT_STREAM_READY) _streamReady: boolean,
    private readonly push: PushService,
    private readonly email: EmailService,
    private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const parked = new ParkedEventStore(this.dataSource, NOTIFICATIONS_SCHEMA);
    this.consumer = new DurableConsumer(
      this.js,
      this.jsm,
      {
        stream: this.config.EVENTS_STREAM,
        durableName: DURABLE_NAME,
        filterSubjects: CONSUMED_SUBJECTS.map((subject) => `${this.config.NATS_SUBJECT_PREFIX}${subject}`),
        concurrency: this.config.EVENT_CONCURRENCY,
        backoffMs: [500, 2_000, 5_000, 30_000, 120_000, 600_000],
        checking: { subjectPrefix: this.config.NATS_SUBJECT_PREFIX, park: (event) => parked.park(event) },
      },
      (subject, payload, message) => this.handle(subject.slice(this.config.NATS_SUBJECT_PREFIX.length), payload, message),
    );
    await this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer?.stop();
  }

  async handle(subject: string, payload: unknown, message: JsMsg): Promise<void> {
    const deliveryCount = message.info.deliveryCount;
    // The consumer has checked the payload against the subject's schema before this runs.
    switch (subject) {
      case EventSubject.OfferCreated: {
        const event = payload as OfferCreatedEvent;
        await this.email.onOfferCreated(event);
        await this.push.fanOut(event, [{ kind: 'offer.created', workerIds: event.workerIds }]);
        return;
      }
      case EventSubject.OfferCompleted: {
        const event = payload as OfferCompletedEvent;
        await this.push.fanOut(event, [
          { kind: 'offer.successful', workerIds: event.successfulWorkerIds },
          { kind: 'offer.unsuccessful', workerIds: event.unsuccessfulWorkerIds },
        ]);
        await this.email.onOfferClosed(
          event,
          { kind: 'completed', successfulWorkerIds: event.successfulWorkerIds, unsuccessfulWorkerIds: event.unsuccessfulWorkerIds },
          deliveryCount,
        );
        return;
      }
      case EventSubject.OfferWithdrawn: {
        const event = payload as OfferWithdrawnEvent;
        await this.push.fanOut(event, [{ kind: 'offer.withdrawn', workerIds: event.workerIds }]);
        await this.email.onOfferClosed(event, { kind: 'withdrawn', workerIds: event.workerIds }, deliveryCount);
        return;
      }
      case EventSubject.OfferResponseRecorded:
        await this.email.onAnswer(payload as OfferResponseRecordedEvent, deliveryCount);
        return;
      case EventSubject.InviteCreated:
        await this.email.onInviteCreated(payload as InviteCreatedEvent);
        return;
      case EventSubject.WebhookEndpointDisabled:
        await this.email.onWebhookEndpointDisabled(payload as WebhookEndpointDisabledEvent);
        return;
      default:
        this.logger.warn(`ignoring an event on ${subject}`);
    }
  }
}
