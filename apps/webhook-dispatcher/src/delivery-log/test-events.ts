import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { directoryUnavailable } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { DeliveriesRepository, type DeliveryView } from '../delivery/deliveries.repository.js';
import { deliveryOf } from '../delivery/delivery.js';
import { RetryQueue } from '../delivery/retry-queue.js';
import { TargetResolver, type WebhookTarget } from '../delivery/target-resolver.js';
import { targetUrl, testCall, type WebhookType, webhookIdFor } from '../domain/webhook-call.js';

/**
 * A test event an organisation sends itself: the call a real event of that type makes (made-up ids),
 * marked as a test in its body and the `webhook-test` header, recorded in the log and queued for its
 * first attempt like a redelivery, so it is signed, retried, held and logged as any other delivery.
 */
@Injectable()
export class TestEvents {
  constructor(
    private readonly resolver: TargetResolver,
    private readonly repository: DeliveriesRepository,
    private readonly retries: RetryQueue,
  ) {}

  async send(type: WebhookType, organisationId: string, now = new Date()): Promise<DeliveryView> {
    const target = await this.target(organisationId);
    const call = testCall(type, organisationId, randomUUID, now);
    const url = target.baseUrl ? urlOf(target.baseUrl, call.path) : null;
    if (url === null) {
      throw ProblemException.conflict('webhook-not-set-up', 'Your organisation has no valid webhook base URL: an admin saves one on the company profile first.');
    }
    const row = await this.repository.insertTestDelivery({
      eventId: call.eventId,
      organisationId,
      eventSubject: call.subject,
      webhookId: webhookIdFor(call.eventId, organisationId),
      method: call.method,
      path: call.path,
      body: call.body,
      url,
    });
    await this.retries.schedule(deliveryOf(row), 1, 0);
    return (await this.repository.find(row.id)) as DeliveryView;
  }

  private async target(organisationId: string): Promise<WebhookTarget> {
    try {
      return await this.resolver.resolve(organisationId);
    } catch {
      // Our side, not the caller's: contact-directory did not say where the organisation's service is.
      throw directoryUnavailable();
    }
  }
}

/** The URL a call goes to; null for a base URL that makes none (the directory checks it when it is saved). */
function urlOf(baseUrl: string, path: string): string | null {
  try {
    return targetUrl(baseUrl, path).url;
  } catch {
    return null;
  }
}
