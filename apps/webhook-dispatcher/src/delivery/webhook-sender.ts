import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { OutboundClient, OutboundRequestError, type OutboundResponse } from '@availability/outbound-http';
import { signRequest, SigningKeyRing } from '@availability/webhook-signing';
import { outboundClientOptions, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { classifyFailure, classifyResponse, type Verdict } from '../domain/classify.js';
import { targetUrl, unsignedHeaders } from '../domain/webhook-call.js';
import type { Delivery } from './delivery.js';
import type { WebhookTarget } from './target-resolver.js';

/** One call to an integrator, as the attempt log keeps it. */
export interface CallResult {
  verdict: Verdict;
  startedAt: Date;
  durationMs: number;
  /** What was called; null when the base URL and path make no valid URL. */
  url: string | null;
  response?: OutboundResponse;
  errorKind: string | null;
  errorMessage: string | null;
}

/**
 * Makes one call of a delivery: signs it in the organisation's schemes and sends it through the
 * SSRF-guarded outbound client, then classifies what came back. Decides nothing about retries.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly client: OutboundClient;

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly keys: SigningKeyRing,
  ) {
    this.client = new OutboundClient(outboundClientOptions(config));
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.close();
  }

  async send(delivery: Pick<Delivery, 'webhookId' | 'method' | 'path' | 'body' | 'test'> & { series?: number }, to: WebhookTarget & { baseUrl: string }): Promise<CallResult> {
    const startedAt = new Date();
    let url: string | null = null;
    try {
      const target = targetUrl(to.baseUrl, delivery.path);
      url = target.url;
      const headers: Record<string, string> = {
        ...signRequest({
          secrets: to.secrets,
          schemes: to.signatureSchemes,
          signingKey: this.keys.active,
          method: delivery.method,
          pathWithQuery: target.pathWithQuery,
          body: delivery.body,
          webhookId: delivery.webhookId,
        }),
        ...unsignedHeaders(delivery),
      };
      const response = await this.client.send({
        url: target.url,
        method: delivery.method,
        headers,
        body: delivery.body === '' ? undefined : delivery.body,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: this.config.WEBHOOK_RESPONSE_EXCERPT_BYTES,
      });
      const verdict = classifyResponse(response.status, response.headers);
      return {
        verdict,
        startedAt,
        durationMs: response.durationMs,
        url,
        response,
        errorKind: null,
        errorMessage: verdict.kind === 'success' ? null : verdict.kind === 'disable' ? 'HTTP 410 Gone: endpoint disabled' : `HTTP ${response.status}`,
      };
    } catch (error) {
      const failed = { startedAt, durationMs: Date.now() - startedAt.getTime(), url, errorMessage: (error as Error).message };
      if (error instanceof OutboundRequestError) return { ...failed, verdict: classifyFailure(error.kind), errorKind: error.kind };
      // An invalid base URL or secret: retrying cannot help.
      if (error instanceof TypeError) return { ...failed, verdict: { kind: 'forbidden' }, errorKind: 'invalid-target' };
      throw error;
    }
  }
}
