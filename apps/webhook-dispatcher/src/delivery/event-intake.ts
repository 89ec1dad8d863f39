import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { inAttemptSpan } from './attempt-span.js';
import { targetUrl, type WebhookCall, webhookIdFor } from '../domain/webhook-call.js';
import type { NewDelivery } from './deliveries.repository.js';
import { Deliverer } from './deliverer.js';
import { callOf, deliveryOf } from './delivery.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import { RetryQueue } from './retry-queue.js';
import { TargetResolver } from './target-resolver.js';

/**
 * Turns the calls events ask for (WebhookEventsController) into deliveries and makes their first
 * attempts; the event is acked only once its delivery's outcome is recorded (or its next attempt is
 * safely queued, or it is held), when `handle` resolves. The JetStream message is what keeps a first
 * attempt durable: a crash before the ack redelivers the event.
 *
 * An event seen for the first time (the stream's first delivery of its first publication) cannot have
 * a delivery yet: its call is made at once and the delivery written with its outcome, one statement.
 * Any other (redelivered, or published again) looks for its delivery first and makes the attempt only
 * if the delivery still waits for it, so no finished delivery makes a second webhook; a delivery
 * waiting for a retry gets its retry job queued again, in case the crash that redelivered the event
 * came before the job was queued.
 */
@Injectable()
export class EventIntake {
  private readonly logger = new Logger('EventIntake');

  constructor(
    private readonly resolver: TargetResolver,
    private readonly recorder: DeliveryRecorder,
    private readonly deliverer: Deliverer,
    private readonly retries: RetryQueue,
  ) {}

  async handle(call: WebhookCall, firstSight: boolean): Promise<void> {
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
    if (firstSight && url && target.baseUrl) {
      const baseUrl = target.baseUrl;
      await inAttemptSpan(callOf(row), 1, () => this.deliverer.deliverFirst(row, { ...target, baseUrl }));
      return;
    }
    const recorded = await this.recorder.delivery(row);
    // Finished, held, or (a concurrent insert) not yet visible: nothing to do here.
    if (recorded.id === null || recorded.held || (recorded.status !== 'pending' && recorded.status !== 'failed')) return;
    const delivery = deliveryOf({ ...row, id: recorded.id, series: recorded.series });
    const attemptNo = recorded.attemptsInSeries + 1;
    if (recorded.status === 'failed') {
      // Waiting for its retry, which may never have been queued: the instance that logged the failed
      // attempt died before queueing it, and so did not ack the event either. Queued again under the
      // same job id, an existing job is left as it is; the recovery sweep would find it only much later.
      const dueInMs = recorded.nextAttemptAt ? recorded.nextAttemptAt.getTime() - Date.now() : 0;
      await this.retries.schedule(delivery, attemptNo, Math.max(0, dueInMs));
      return;
    }
    // Its claim is this handling's own: a job already making the attempt keeps it.
    const outcome = await inAttemptSpan(delivery, attemptNo, () => this.deliverer.deliver(delivery, attemptNo, `intake_${randomUUID()}`));
    if (outcome.kind === 'wait') await this.retries.schedule(delivery, attemptNo, outcome.ms);
  }
}
