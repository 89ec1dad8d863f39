import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { MicroBatcher } from '@availability/service-core';
import { inAttemptSpan } from './attempt-span.js';
import { targetUrl, type WebhookCall, webhookIdFor } from '../domain/webhook-call.js';
import { DeliveriesRepository, type IntakeResult, type NewDelivery } from './deliveries.repository.js';
import { Deliverer } from './deliverer.js';
import { deliveryOf } from './delivery.js';
import { RetryQueue } from './retry-queue.js';
import { TargetResolver } from './target-resolver.js';

/**
 * Turns the calls events ask for (WebhookEventsController) into deliveries and makes their first
 * attempts: one delivery row per (event, organisation) (idempotent), then the attempt through the
 * Deliverer; the event is acked only once its outcome is recorded (or its next attempt is safely
 * queued, or it is held), when `handle` resolves. The JetStream message is what keeps a first attempt
 * durable: a crash before the ack redelivers the event, which finds its row and makes the attempt
 * again only if the delivery is still waiting for it, so no finished delivery makes a second webhook.
 * Rows of a burst are written in batches (one INSERT per batch).
 */
@Injectable()
export class EventIntake implements OnModuleDestroy {
  private readonly logger = new Logger('EventIntake');
  private readonly batcher = new MicroBatcher<NewDelivery, IntakeResult>((rows) => this.repository.insertDeliveries(rows), 500);

  constructor(
    private readonly resolver: TargetResolver,
    private readonly repository: DeliveriesRepository,
    private readonly deliverer: Deliverer,
    private readonly retries: RetryQueue,
  ) {}

  /** Graceful shutdown, once the bus handlers took their last event: the rows of those in hand are written first. */
  async onModuleDestroy(): Promise<void> {
    await this.batcher.drain();
  }

  async handle(call: WebhookCall): Promise<void> {
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
    const outcome = await inAttemptSpan(delivery, attemptNo, () => this.deliverer.deliver(delivery, attemptNo));
    if (outcome.kind === 'wait') await this.retries.schedule(delivery, attemptNo, outcome.ms);
  }
}
