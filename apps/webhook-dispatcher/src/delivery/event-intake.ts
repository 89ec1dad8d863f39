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
  PoisonMessageError,
} from '@availability/messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { MicroBatcher } from '../domain/micro-batcher.js';
import { targetUrl, UnsupportedEventError, type WebhookCall, webhookCallFor, webhookIdFor } from '../domain/webhook-call.js';
import { DeliveriesRepository, type NewDelivery } from './deliveries.repository.js';
import { type DeliveryJob, DeliveryQueue } from './delivery-queue.js';
import { EndpointRegistry } from './endpoint-registry.js';
import { HeldDeliveries } from './held-deliveries.js';
import { TargetResolver } from './target-resolver.js';

/** The durable consumer and its events, as the bus permissions allow them (libs/messaging bus-permissions.ts). */
const CONSUMER = BUS_ROLES['webhook-dispatcher'].consumes;
export const DURABLE_NAME = CONSUMER.durableName;
/** The events that call integrators; the order (in bus-permissions.ts) keeps JetStream consumer names stable. */
export const WEBHOOK_EVENTS = CONSUMER.subjects;

/**
 * Turns events into deliveries: one delivery row (idempotent) and one BullMQ job (deterministic id)
 * per (event, organisation), then acks. A crash before the ack redelivers the event, which finds its
 * row and re-adds a job only if the delivery has not finished, so no event makes a second webhook.
 * Events of a burst are written in batches (one INSERT, one Redis round trip per batch). An event for an
 * endpoint whose circuit is open is written held, with no job (HeldDeliveries); one for an endpoint that
 * stalled is queued delayed rather than fetched only to be put back.
 */
@Injectable()
export class EventIntake implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EventIntake');
  private consumer?: DurableConsumer;
  private readonly batcher = new MicroBatcher<NewDelivery, void>((rows) => this.store(rows), 500);

  constructor(
    @Inject(JETSTREAM) private readonly js: JetStreamClient,
    @Inject(JETSTREAM_MANAGER) private readonly jsm: JetStreamManager,
    @Inject(NATS_SUBJECT_PREFIX) private readonly prefix: string,
    @Inject(EVENT_STREAM_READY) _streamReady: boolean,
    private readonly resolver: TargetResolver,
    private readonly repository: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    private readonly endpoints: EndpointRegistry,
    private readonly held: HeldDeliveries,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
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
      },
      (subject, payload) => this.handle(subject, payload),
    );
    await this.consumer.start();
  }

  /** Graceful shutdown: take no more events; those in hand finish (their rows and jobs are written) first. */
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
    await this.batcher.add({
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
      held: url !== null && this.endpoints.trialInMs(call.organisationId) > 0,
    });
  }

  private async store(rows: NewDelivery[]): Promise<void[]> {
    const results = await this.repository.insertDeliveries(rows);
    const jobs: DeliveryJob[] = [];
    const held: Array<{ organisationId: string; trialInMs: number }> = [];
    rows.forEach((row, index) => {
      const result = results[index];
      // Only a delivery still waiting for its first attempt needs a job (re-adding an existing one is a no-op).
      if (row.status !== 'pending' || result.id === null || result.status !== 'pending') return;
      // Held for an endpoint whose circuit is open: its trial job calls it again (scheduled below).
      if (result.held) {
        if (result.inserted) held.push({ organisationId: row.organisationId, trialInMs: this.endpoints.trialInMs(row.organisationId) });
        return;
      }
      jobs.push({
        deliveryId: result.id,
        series: result.series,
        eventId: row.eventId,
        organisationId: row.organisationId,
        subject: row.eventSubject,
        webhookId: row.webhookId,
        method: row.method as DeliveryJob['method'],
        path: row.path,
        body: row.body,
      });
    });
    await this.queue.enqueue(jobs, (job) => this.endpoints.delayMs(job.organisationId));
    await this.held.heldAtIntake(held);
    return rows.map(() => undefined);
  }
}
