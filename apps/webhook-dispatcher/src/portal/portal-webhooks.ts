import { Injectable } from '@nestjs/common';
import type { PortalPrincipal } from '@availability/auth';
import { validateBody } from '@availability/service-core';
import { SigningKeyRing, WELL_KNOWN_KEY_SET_PATH } from '@availability/webhook-signing';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveriesRepository, type DeliveryView } from '../delivery/deliveries.repository.js';
import { type DeliveryPage, DeliveryLog } from '../delivery-log/delivery-log.js';
import type { EndpointStateView, RedeliverablePreviewView } from '../delivery-log/delivery-log.view.js';
import { deliveryListFilter, timestampParam } from '../delivery-log/delivery-query.js';
import { EndpointStates } from '../delivery-log/endpoint-states.js';
import { REDELIVERABLE_STATUSES, RedeliverSinceDto } from '../delivery-log/redeliver.dto.js';
import { TestEvents } from '../delivery-log/test-events.js';
import type { SigningKeysView } from '../keys/key-set.view.js';
import { PortalWebhooksPolicy } from './portal-webhooks.policy.js';
import { TestEventDto } from './test-event.dto.js';

export const PORTAL_MAX_PAGE = 200;
/** Where a redelivery preview stops counting. */
export const REDELIVERY_PREVIEW_CAP = 10_000;

/**
 * An organisation's own webhooks, for the portal's Webhooks page: always of the organisation of the
 * caller's credential (another organisation's delivery is not found), through the same log, queue
 * and endpoint gate as the operator's API.
 */
@Injectable()
export class PortalWebhooks {
  constructor(
    private readonly log: DeliveryLog,
    private readonly endpoints: EndpointStates,
    private readonly tests: TestEvents,
    private readonly repository: DeliveriesRepository,
    private readonly policy: PortalWebhooksPolicy,
    private readonly keys: SigningKeyRing,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  list(user: PortalPrincipal, query: Record<string, unknown>): Promise<DeliveryPage> {
    return this.log.list({ ...deliveryListFilter(query, PORTAL_MAX_PAGE), organisationId: user.organisationId });
  }

  async get(user: PortalPrincipal, id: string): Promise<DeliveryView> {
    return (await this.log.find(id, user.organisationId)) ?? this.log.notFound();
  }

  async redeliver(user: PortalPrincipal, id: string): Promise<DeliveryView> {
    const delivery = (await this.log.find(id, user.organisationId)) ?? this.log.notFound();
    this.policy.redeliverable(delivery);
    this.policy.sendable(await this.repository.endpoint(user.organisationId));
    return (await this.log.redeliver(id, user.organisationId)) ?? this.log.notFound();
  }

  /** What `redeliverSince` would start again now, for the portal to ask before it does. */
  async redeliverablePreview(user: PortalPrincipal, query: Record<string, unknown>): Promise<RedeliverablePreviewView> {
    const dto = validateBody(RedeliverSinceDto, { since: query.since });
    const since = timestampParam('since', dto.since) as Date;
    this.policy.redeliverySince(since);
    const deliveries = await this.repository.countRedeliverable(since, [...REDELIVERABLE_STATUSES], user.organisationId, REDELIVERY_PREVIEW_CAP);
    return { deliveries, capped: deliveries >= REDELIVERY_PREVIEW_CAP, cappedAt: REDELIVERY_PREVIEW_CAP };
  }

  async redeliverSince(user: PortalPrincipal, body: unknown): Promise<number> {
    const dto = validateBody(RedeliverSinceDto, body ?? {});
    const since = timestampParam('since', dto.since) as Date;
    this.policy.redeliverySince(since);
    this.policy.sendable(await this.repository.endpoint(user.organisationId));
    return this.log.redeliverSince(since, dto.statuses ?? ['failed', 'dead'], user.organisationId);
  }

  /** The key set's address: below the configured public address, else this service's local one. */
  signingKeys(): SigningKeysView {
    const base = (this.config.WEBHOOK_PUBLIC_URL || `http://127.0.0.1:${this.config.PORT}`).replace(/\/+$/, '');
    return { keySetUrl: `${base}${WELL_KNOWN_KEY_SET_PATH}`, keys: this.keys.publishedKeys() };
  }

  endpoint(user: PortalPrincipal): Promise<EndpointStateView> {
    return this.endpoints.get(user.organisationId);
  }

  enable(user: PortalPrincipal): Promise<EndpointStateView> {
    this.policy.enable(user);
    return this.endpoints.enable(user.organisationId);
  }

  async sendTest(user: PortalPrincipal, body: unknown): Promise<DeliveryView> {
    const { type } = validateBody(TestEventDto, body ?? {});
    this.policy.sendable(await this.repository.endpoint(user.organisationId));
    return this.tests.send(type, user.organisationId);
  }
}
