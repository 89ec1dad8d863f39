import { Injectable, Logger } from '@nestjs/common';
import { EventSubject, type WebhookEndpointDisabledEvent } from '@availability/contracts';
import { newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import type { EndpointHealth, EndpointHealthStore } from '../domain/endpoint-gate.js';
import { DeliveriesRepository } from './deliveries.repository.js';

/**
 * The endpoint gate's shared health in PostgreSQL (`dispatcher.endpoint`), seen by every instance.
 * Disabling writes `webhooks.endpoint.disabled` through the outbox in the same transaction, and
 * dead-letters what was held for the endpoint.
 */
@Injectable()
export class PostgresEndpointHealthStore implements EndpointHealthStore {
  private readonly logger = new Logger('EndpointHealth');

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly relay: OutboxRelay,
  ) {}

  async read(organisationId: string): Promise<EndpointHealth> {
    const row = await this.repository.endpoint(organisationId);
    return {
      failingSince: row?.failingSince ? row.failingSince.getTime() : null,
      disabledReason: row?.disabledAt ? (row.disabledReason ?? 'disabled') : null,
    };
  }

  async markFailing(organisationId: string, baseUrl: string): Promise<number> {
    return (await this.repository.markFailing(organisationId, baseUrl)).getTime();
  }

  clearFailing(organisationId: string): Promise<void> {
    return this.repository.clearFailing(organisationId);
  }

  async disable(organisationId: string, baseUrl: string, reason: string): Promise<void> {
    const event = newEvent<Pick<WebhookEndpointDisabledEvent, 'baseUrl' | 'reason'>>(organisationId, { baseUrl, reason });
    const message = outboxMessage(EventSubject.WebhookEndpointDisabled, event);
    if (await this.repository.disable(organisationId, baseUrl, reason, message)) {
      this.logger.warn(`disabled the endpoint of organisation ${organisationId}: ${reason}`);
      this.relay.publishCommitted([message]);
    }
  }

  enable(organisationId: string): Promise<void> {
    return this.repository.enable(organisationId);
  }
}
