import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  DirectoryPattern,
  type ResolveWebhookTargetReply,
  type ResolveWebhookTargetRequest,
  WEBHOOK_TARGET_CHANGED_SUBJECT,
  type WebhookTarget as DirectoryWebhookTarget,
  type WebhookTargetChangedMessage,
} from '@availability/contracts';
import { openWebhookTarget, RequestReply, SealedBox } from '@availability/messaging';
import { TtlCache } from '@availability/service-core';
import { DEFAULT_SIGNATURE_SCHEMES, needsSecret, parseSignatureSchemes, type SignatureScheme } from '@availability/webhook-signing';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/** Where and how to call one organisation's service: the directory's reply, checked. */
export interface WebhookTarget extends DirectoryWebhookTarget {
  signatureSchemes: SignatureScheme[];
}

/**
 * Where and how to call an organisation's service, asked of contact-directory over NATS and cached.
 * The signing secrets arrive sealed for this service's xkey and are opened here, so they never
 * cross the bus in clear; a reply not sealed by the directory's key is refused.
 * A `webhook-target.changed` broadcast evicts the entry at once and tells the listeners (the endpoint
 * registry re-enables a disabled endpoint). Concurrent look-ups of one organisation share one request.
 */
@Injectable()
export class TargetResolver implements OnModuleInit {
  private readonly logger = new Logger('TargetResolver');
  private readonly cache = new TtlCache<string, WebhookTarget>(100_000);
  private readonly inFlight = new Map<string, Promise<WebhookTarget>>();
  private readonly listeners: Array<(organisationId: string) => void> = [];
  private readonly sealing?: SealedBox;

  constructor(
    private readonly rpc: RequestReply,
    private readonly config: WebhookDispatcherConfig,
  ) {
    if (config.DISPATCHER_XKEY_SEED && config.DIRECTORY_XKEY) this.sealing = new SealedBox(config.DISPATCHER_XKEY_SEED);
    else this.logger.warn('DISPATCHER_XKEY_SEED or DIRECTORY_XKEY not set: no webhook target can be opened, so no webhooks are sent');
  }

  onModuleInit(): void {
    this.rpc.subscribe<WebhookTargetChangedMessage>(WEBHOOK_TARGET_CHANGED_SUBJECT, (message) => {
      if (typeof message?.organisationId !== 'string') return;
      this.cache.delete(message.organisationId);
      for (const listener of this.listeners) listener(message.organisationId);
    });
  }

  onChanged(listener: (organisationId: string) => void): void {
    this.listeners.push(listener);
  }

  async resolve(organisationId: string): Promise<WebhookTarget> {
    const cached = this.cache.get(organisationId);
    if (cached) return cached;
    let pending = this.inFlight.get(organisationId);
    if (!pending) {
      pending = this.ask(organisationId).finally(() => this.inFlight.delete(organisationId));
      this.inFlight.set(organisationId, pending);
    }
    return pending;
  }

  private async ask(organisationId: string): Promise<WebhookTarget> {
    if (!this.sealing) throw new Error('webhook target sealing is not configured (DISPATCHER_XKEY_SEED, DIRECTORY_XKEY)');
    const reply = await this.rpc.request<ResolveWebhookTargetRequest, ResolveWebhookTargetReply>(
      DirectoryPattern.ResolveWebhookTarget,
      { organisationId },
      this.config.DIRECTORY_TIMEOUT_MS,
    );
    const opened = openWebhookTarget(this.sealing, this.config.DIRECTORY_XKEY, organisationId, reply);
    const target: WebhookTarget = {
      baseUrl: opened.baseUrl,
      secrets: opened.secrets.slice(0, 2),
      // Absent from a directory that predates the setting; an unreadable value also signs as before.
      signatureSchemes: parseSignatureSchemes(opened.signatureSchemes) ?? [...DEFAULT_SIGNATURE_SCHEMES],
    };
    if (target.baseUrl && target.secrets.length === 0 && needsSecret(target.signatureSchemes)) {
      this.logger.warn(`organisation ${organisationId} has a base URL but no signing secret; treated as having none`);
      target.baseUrl = null;
    }
    this.cache.set(organisationId, target, this.config.WEBHOOK_TARGET_CACHE_TTL_MS);
    return target;
  }
}
