import { Injectable } from '@nestjs/common';
import { ProblemException } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveriesRepository, type DeliveryFilter, type DeliveryStatus, type DeliveryView, REDELIVERY_BATCH } from '../delivery/deliveries.repository.js';
import { deliveryOf } from '../delivery/delivery.js';
import { RetryQueue } from '../delivery/retry-queue.js';

/** A page of the log: the deliveries and the cursor of the next page (null on the last). */
export interface DeliveryPage {
  items: DeliveryView[];
  nextCursor: string | null;
}

const DELIVERY_ID = /^\d{1,15}$/;

/**
 * The delivery log as both APIs use it: the operator's across every organisation, the portal's with
 * the organisation of the caller's credential (`organisationId`), so another organisation's delivery
 * is simply not found. Redeliveries start a new attempt series with the same webhook-id and go
 * through the queue, the same path as every retry.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly retries: RetryQueue,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  /**
   * The answer for a delivery that is not in the log: it never was, it is another organisation's, or
   * it finished longer ago than the log keeps deliveries and was pruned (a redelivery of it then finds
   * nothing to send, and brings nothing back).
   */
  notFound(): never {
    throw new ProblemException(
      404,
      'not-found',
      `The delivery was not found. The delivery log keeps a finished delivery for ${this.config.WEBHOOK_DELIVERY_RETENTION_DAYS} days after its last attempt.`,
    );
  }

  async list(filter: DeliveryFilter): Promise<DeliveryPage> {
    const items = await this.repository.list(filter);
    return { items, nextCursor: items.length === filter.limit ? String(items[items.length - 1].id) : null };
  }

  /** The delivery with this id (as in the path), if it exists (and is `organisationId`'s). */
  async find(id: string, organisationId?: string): Promise<DeliveryView | undefined> {
    return DELIVERY_ID.test(id) ? this.repository.find(Number(id), organisationId) : undefined;
  }

  /** Delivers again (any status but skipped); undefined when there is no such delivery to send. */
  async redeliver(id: string, organisationId?: string): Promise<DeliveryView | undefined> {
    const row = DELIVERY_ID.test(id) ? await this.repository.startRedelivery(Number(id), organisationId) : undefined;
    if (!row) return undefined;
    await this.retries.schedule(deliveryOf(row), 1, 0);
    return this.repository.find(row.id);
  }

  /**
   * Delivers again every delivery in `statuses` of events recorded since `since`, of one organisation
   * or all; returns how many. Batch by batch, each batch's jobs queued before the next is started, so
   * however many there are, memory holds one batch.
   */
  async redeliverSince(since: Date, statuses: DeliveryStatus[], organisationId?: string): Promise<number> {
    let redelivered = 0;
    let afterId = 0;
    for (;;) {
      const rows = await this.repository.startRedeliveries(since, statuses, organisationId, afterId, REDELIVERY_BATCH);
      if (rows.length === 0) return redelivered;
      await this.retries.scheduleAll(rows.map((row) => ({ delivery: deliveryOf(row), attemptNo: 1 })));
      redelivered += rows.length;
      afterId = Number(rows[rows.length - 1].id);
    }
  }
}
