import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  BUS_ROLES,
  DurableConsumer,
  EVENT_STREAM_READY,
  JETSTREAM,
  JETSTREAM_MANAGER,
  type JetStreamClient,
  type JetStreamManager,
  NATS_SUBJECT_PREFIX,
  ParkedEventStore,
  PoisonMessageError,
} from '@availability/messaging';
import { DataSource } from 'typeorm';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { MicroBatcher } from '../domain/micro-batcher.js';
import { targetUrl, UnsupportedEventError, type WebhookCall, webhookCallFor, webhookIdFor } from '../domain/webhook-call.js';
import { DeliveriesRepository, DISPATCHER_SCHEMA, type IntakeResult, type NewDelivery } from './deliveries.repository.js';
import { Deliverer } from './deliverer.js';
import { deliveryOf } from './delivery.js';
import { RetryQueue } from './retry-queue.js';
import { TargetResolver } from './target-resolver.js';

/** The durable consumer and its events, as the bus permissions allow them (libs/messaging bus-permissions.ts). */
const CONSUMER = BUS_ROLES['webhook-dispatcher'].consumes;
export const DURABLE_NAME = CONSUMER.durableName;
/** The events that call integrators; the order (in bus-permissions.ts) keeps JetStream consumer names stable. */
export const WEBHOOK_EVENTS = CONSUMER.subjects;

/**
 * Turns events into deliveries and makes their first attempts: one delivery row per (event,
 * organisation) (idempotent), then the attempt through the Deliverer, and the ack only once its outcome
 * is recorded (or its next attempt is safely queued, or it is held). The JetStream message is what keeps
 * a first attempt durable: a crash before the ack redelivers the event, which finds its row and makes
 * the attempt again only if the delivery is still waiting for it, so no finished delivery makes a second
 * webhook. Rows of a burst are written in batches (one INSERT per batch).
 */
@Injectable()
export class EventIntake implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EventIntake');
  private consumer?: DurableConsumer;
  private readonly batcher = new MicroBatcher<NewDelivery, IntakeResult>((rows) => this.repository.insertDeliveries(rows), 500);

  constructor(
    @Inject(JETSTREAM) private readonly js: JetStreamClient,
    @Inject(JETSTREAM_MANAGER) private readonly jsm: JetStreamManager,
    @Inject(NATS_SUBJECT_PREFIX) private readonly prefix: string,
    @Inject(EVENT_STREAM_READY) _streamReady: boolean,
    private readonly resolver: TargetResolver,
    private readonly repository: DeliveriesRepository,
    private readonly deliverer: Deliverer,
    private readonly retries: RetryQueue,
    private readonly config: WebhookDispatcherConfig,
    private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const parked = new ParkedEventStore(this.dataSource, DISPATCHER_SCHEMA);
    this.consumer = new DurableConsumer(
      this.js,
      this.jsm,
      {
        stream: this.config.EVENTS_STREAM,
        durableName: DURABLE_NAME,
        filterSubjects: WEBHOOK_EVENTS.map((subject) => `${this.prefix}${subject}`),
        concurrency: this.config.WEBHOOK_INTAKE_CONCURRENCY,
        backoffMs: [1_000, 5_000, 15_000, 60_000],
        ackWaitMs: this.config.WEBHOOK_INTAKE_ACK_WAIT_MS,
        checking: { subjectPrefix: this.prefix, park: (event) => parked.park(event) },
      },
      (subject, payload) => this.handle(subject, payload),
    );
    await this.consumer.start();
  }

  /** Graceful shutdown: take no more events; those in hand finish (their attempts are logged) first. */
  async onModuleDestroy(): Promise<void> {
    await this.consumer?.stop();
    await this.batcher.drain();
  }

  async handle(fullSubject: string, payload: unknown): Promise<void> {
    const subject = fullSubject.startsWith(this.prefix) ? fullSubject.slice(this.prefix.length) : fullSubject;
    let call: WebhookCall;
    try {
      call = webhookCallFor(subject, payload);
    } catch (error) {
      if (error instanceof UnsupportedEventError) throw new PoisonMessageError(error.message);
      throw error;
    }
    // Throws when the directory does not answer: the event is redelivered later.
    const target = await this.resolver.resolve(call.organisationId);
    let url: string | null = null;
    if (target.baseUrl) {
      try {
        url = targetUrl(target.baseUrl, call.path).url;
      } catch {
        this.logger.warn(`organisation ${call.organisationId} has an invalid base URL; event ${call.eventId} is not delivered`);
      }
    }
    const row: NewDelivery = {
      eventId: call.eventId,
      organisationId: call.organisationId,
      eventSubject: call.subject,
      webhookId: webhookIdFor(call.eventId, call.organisationId),
      method: call.method,
      path: call.path,
      body: call.body,
      url,
      // No base URL: nothing is sent, the log says so (DESIGN 4).
      status: url ? 'pending' : 'skipped',
    };
    const recorded = await this.batcher.add(row);
    // Finished, held, waiting for a queued retry, or (a concurrent insert) not yet visible: nothing to do here.
    if (recorded.id === null || recorded.status !== 'pending' || recorded.held) return;
    const delivery = deliveryOf({ ...row, id: recorded.id, series: recorded.series });
    const attemptNo = recorded.attemptsInSeries + 1;
    const outcome = await this.deliverer.deliver(delivery, attemptNo);
    if (outcome.kind === 'wait') await this.retries.schedule(delivery, attemptNo, outcome.ms);
  }
}
