import { inSpan, tracingOn } from '@availability/service-core';
import type { Delivered } from './deliverer.js';
import type { Delivery } from './delivery.js';

/** What an attempt's span names: a logged delivery, or a first attempt's before it is logged (no id yet, series 0). */
type SpanDelivery = Pick<Delivery, 'webhookId' | 'organisationId' | 'subject'> & Partial<Pick<Delivery, 'deliveryId' | 'series'>>;

/**
 * One attempt of a delivery, from its endpoint's admission to its outcome in the delivery log, as a
 * span of the trace of the event (or job) that asked for it, when tracing is on; the call to the
 * integrator is its child (the outbound client's span), and a retry it schedules follows from it.
 */
export function inAttemptSpan(delivery: SpanDelivery, attemptNo: number, attempt: () => Promise<Delivered>): Promise<Delivered> {
  return inSpan('webhook attempt', { attributes: tracingOn() ? attemptAttributes(delivery, attemptNo) : undefined }, async (span) => {
    const outcome = await attempt();
    // `wait`: the endpoint or the directory put the attempt off; no call was made.
    span?.setAttribute('webhook.outcome', outcome.kind);
    return outcome;
  });
}

function attemptAttributes(delivery: SpanDelivery, attemptNo: number) {
  return {
    'webhook.id': delivery.webhookId,
    'webhook.delivery_id': delivery.deliveryId,
    'webhook.series': delivery.series ?? 0,
    'webhook.attempt': attemptNo,
    'webhook.event_subject': delivery.subject,
    'webhook.organisation_id': delivery.organisationId,
  };
}
