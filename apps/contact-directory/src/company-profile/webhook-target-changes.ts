import { Inject, Injectable, Logger } from '@nestjs/common';
import { WEBHOOK_TARGET_CHANGED_SUBJECT, type WebhookTargetChangedMessage } from '@availability/contracts';
import { NATS_CONNECTION, type NatsConnection, RequestReply } from '@availability/messaging';
import { SuggestionsService } from '../suggestions/suggestions.service.js';

/**
 * An organisation's webhook target changed (base URL, secret, suggestions offered, approval as a
 * provider): this instance's provider list is dropped, and services caching the target (the
 * dispatcher, other instances' provider lists) are told to drop theirs now. Fire-and-forget: a
 * service that misses it still drops the entry when its cache expires.
 */
@Injectable()
export class WebhookTargetChanges {
  private readonly logger = new Logger('WebhookTargetChanges');

  constructor(
    private readonly rpc: RequestReply,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    private readonly suggestions: SuggestionsService,
  ) {}

  async changed(organisationId: string): Promise<void> {
    this.suggestions.forgetProviders();
    const message: WebhookTargetChangedMessage = { organisationId };
    try {
      this.rpc.publish(WEBHOOK_TARGET_CHANGED_SUBJECT, message);
      await this.nats.flush();
    } catch (error) {
      this.logger.warn(`webhook-target broadcast failed (cached targets expire on their own): ${(error as Error).message}`);
    }
  }
}
