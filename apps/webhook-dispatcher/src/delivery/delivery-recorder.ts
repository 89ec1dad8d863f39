import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { counter, MicroBatcher } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { type AttemptRecord, DeliveriesRepository, type FirstAttemptRecord, type IntakeResult, type NewDelivery } from './deliveries.repository.js';

/**
 * What the delivery path writes to the delivery log, each kind batched: what finishes in one turn of
 * the event loop shares one statement (first attempts and deliveries held from the start: what comes
 * within WEBHOOK_RECORD_LINGER_MS).
 * A write resolves once it is committed.
 */
@Injectable()
export class DeliveryRecorder implements OnModuleDestroy {
  private readonly logger = new Logger('DeliveryRecorder');
  private readonly deliveries = new MicroBatcher<NewDelivery, IntakeResult>((rows) => this.repository.insertDeliveries(rows), 500);
  private readonly attempts = new MicroBatcher<AttemptRecord, void>((records) => this.repository.recordAttempts(records).then(() => records.map(() => undefined)), 500);
  /**
   * First attempts linger (WEBHOOK_RECORD_LINGER_MS): nobody waits on their log but the event's ack,
   * and at a steady trickle each would otherwise be a statement, a commit and an ack of its own.
   * Retries do not: a retry worker's slot is held until its attempt is logged.
   */
  private readonly firstAttempts: MicroBatcher<FirstAttemptRecord, number | null>;
  /** Linger too: while an endpoint is down, each of its events would otherwise be a statement and a commit of its own. */
  private readonly heldDeliveries: MicroBatcher<NewDelivery, IntakeResult>;
  private readonly repeats = counter(
    'webhook_repeated_event_calls_total',
    'Calls made for an event seen for the first time that had a delivery already (published as first twice, or a delivery count lost in a NATS leader change): each is logged as one more attempt of that delivery.',
  );

  constructor(
    private readonly repository: DeliveriesRepository,
    config: WebhookDispatcherConfig,
  ) {
    const lingering = lingeringBatchSize(config.WEBHOOK_INTAKE_CONCURRENCY);
    this.firstAttempts = new MicroBatcher((records) => this.repository.recordFirstAttempts(records), lingering, config.WEBHOOK_RECORD_LINGER_MS);
    this.heldDeliveries = new MicroBatcher((rows) => this.repository.insertDeliveries(rows, true), lingering, config.WEBHOOK_RECORD_LINGER_MS);
  }

  /** Graceful shutdown: what was handed over is written first. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.deliveries.drain(), this.attempts.drain(), this.firstAttempts.drain(), this.heldDeliveries.drain()]);
  }

  /** A delivery before its first attempt, idempotently: an event that has one already finds it. */
  delivery(row: NewDelivery): Promise<IntakeResult> {
    return this.deliveries.add(row);
  }

  /**
   * A delivery of an event seen for the first time that its endpoint holds back (its circuit is open),
   * written held; an event that had a delivery already finds it, unchanged.
   */
  heldDelivery(row: NewDelivery): Promise<IntakeResult> {
    return this.heldDeliveries.add(row);
  }

  /** An attempt of a logged delivery, and the state it leaves the delivery in. */
  attempt(record: AttemptRecord): Promise<void> {
    return this.attempts.add(record);
  }

  /**
   * The first attempt of a delivery that was not logged before it, written with the delivery. Returns
   * the new delivery's id; null when the event had a delivery already, whose course this attempt does
   * not change (it is logged as one more of its attempts).
   */
  async firstAttempt(record: FirstAttemptRecord): Promise<number | null> {
    const id = await this.firstAttempts.add(record);
    if (id !== null) return id;
    this.repeats.inc();
    const { eventId, organisationId } = record.delivery;
    this.logger.warn(`event ${eventId} for ${organisationId} came as new but had a delivery already: it was called again (same webhook-id), and the call is logged with that delivery`);
    await this.repository.appendRepeatAttempt(record);
    return null;
  }
}

/**
 * Rows a lingering batch holds before it is written without waiting out the linger. The events whose
 * records wait in it hold intake slots, so it is a quarter of them: in a burst the other slots keep
 * calling while a batch fills and is written. As large as the slots (500 against 512, as it was), a
 * batch never filled while the rest of the slots waited for their endpoint, and every event of a
 * burst waited the whole linger, which capped a backlog's delivery rate at slots ÷ linger.
 */
export function lingeringBatchSize(intakeConcurrency: number): number {
  return Math.max(1, Math.min(500, Math.floor(intakeConcurrency / 4)));
}
