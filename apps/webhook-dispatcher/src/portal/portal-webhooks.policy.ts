import { type PortalPrincipal, requireOrganisationAdmin } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import type { DeliveryView, EndpointRow } from '../delivery/deliveries.repository.js';

/** How far back an organisation may redeliver by time, at most: a bound on what one request can start. */
export const REDELIVERY_WINDOW_DAYS = 30;
/** A `since` this far ahead of our clock is the caller's clock running fast, not a mistake. */
const CLOCK_SKEW_MS = 60_000;

/**
 * What an organisation may do with its own webhooks from the portal, decided without infrastructure
 * (the clock is injected). Each refusal is a problem naming what to do instead, and changes nothing.
 */
export class PortalWebhooksPolicy {
  /** REDELIVERY_WINDOW_DAYS, or the delivery log's retention when shorter: nothing older is kept to send. */
  private readonly windowDays: number;

  constructor(
    private readonly now: () => number = Date.now,
    retentionDays = REDELIVERY_WINDOW_DAYS,
  ) {
    this.windowDays = Math.min(REDELIVERY_WINDOW_DAYS, retentionDays);
  }

  /** A redelivery by time: from a moment in the last windowDays days. */
  redeliverySince(since: Date): void {
    const ms = since.getTime();
    const now = this.now();
    if (ms > now + CLOCK_SKEW_MS) throw ProblemException.field('since', 'must not be in the future');
    if (ms < now - this.windowDays * 86_400_000) throw ProblemException.field('since', `must be within the last ${this.windowDays} days`);
  }

  /**
   * Re-enabling the endpoint is for the organisation's admins: it is the counterpart of saving the
   * endpoint on the company profile (admins only), and admins are the ones told when it is disabled.
   * Members may look, redeliver and send test events: those only send what the organisation already
   * receives to the endpoint its admins chose.
   */
  enable(user: PortalPrincipal): void {
    requireOrganisationAdmin(user, 'whether the platform calls its webhook endpoint');
  }

  /** Nothing is sent to a disabled endpoint: a redelivery or test event would be dead-lettered at once. */
  sendable(endpoint: Pick<EndpointRow, 'disabledAt' | 'disabledReason'> | undefined): void {
    if (!endpoint?.disabledAt) return;
    throw ProblemException.conflict(
      'webhook-endpoint-disabled',
      `Your webhook endpoint is disabled (${endpoint.disabledReason ?? 'disabled'}): an admin re-enables it first (POST /portal/webhooks/endpoint/enable).`,
    );
  }

  /** A skipped delivery (no base URL when its event came) has nothing to send again. */
  redeliverable(delivery: Pick<DeliveryView, 'status'>): void {
    if (delivery.status === 'skipped') {
      throw ProblemException.conflict('delivery-skipped', 'This delivery was skipped (your organisation had no webhook base URL then): there is nothing to send again.');
    }
  }
}
