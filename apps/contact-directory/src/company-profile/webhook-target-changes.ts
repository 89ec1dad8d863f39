import { Injectable } from '@nestjs/common';
import { WEBHOOK_TARGET_CHANGED_SUBJECT, type WebhookTargetChangedMessage } from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { SuggestionsService } from '../suggestions/suggestions.service.js';

/**
 * An organisation's webhook target changed (base URL, secret, suggestions offered, approval as a
 * provider): this instance's provider list is dropped, and services caching the target (the
 * dispatcher, other instances' provider lists) are told to drop theirs now.
 */
@Injectable()
export class WebhookTargetChanges {
  constructor(
    private readonly rpc: RequestReply,
    private readonly suggestions: SuggestionsService,
  ) {}

  async changed(organisationId: string): Promise<void> {
    this.suggestions.forgetProviders();
    const message: WebhookTargetChangedMessage = { organisationId };
    await this.rpc.broadcast(WEBHOOK_TARGET_CHANGED_SUBJECT, message);
  }
}
