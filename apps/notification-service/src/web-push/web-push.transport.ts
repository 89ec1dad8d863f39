import { createHash } from 'node:crypto';
import webpush from 'web-push';
import { type OutboundRequest, OutboundRequestError, type OutboundResponse } from '@availability/outbound-http';
import type { PushMessage, PushResult, PushTransport } from '../push/push-transport.js';
import type { VapidKeys } from './vapid.js';
import { webPushFailure, webPushResult } from './web-push-errors.js';

/** What the payload carries: small, and all the service worker needs to show the notification and open the offer. */
export interface WebPushPayload {
  kind: string;
  offerId: string;
  title: string;
  body: string;
  /** The offer's stage (OfferStageRule): the service worker keeps the notification of the highest. */
  stage: string;
  stageOrder: number;
}

/** The HTTP client the transport sends with (the platform's OutboundClient; a stub in unit tests). */
export interface WebPushHttpClient {
  send(call: OutboundRequest): Promise<OutboundResponse>;
  close?(): Promise<void>;
}

export interface WebPushTransportOptions {
  vapid: VapidKeys;
  ttlSeconds: number;
  timeoutMs: number;
  /** Requests in flight at once within one batch. */
  concurrency?: number;
  /** Why an endpoint may not be called (the subscription rules), checked before every push; none: any. */
  endpointProblem?: (endpoint: string) => string | undefined;
  now?: () => number;
}

/** RFC 8292: a JWT lives at most 24 h; ours 12 h, signed again after 1 h, one per push service origin. */
const JWT_LIFETIME_S = 12 * 3600;
const JWT_REUSE_MS = 3600_000;

export function webPushPayload(message: PushMessage): string {
  const payload: WebPushPayload = {
    kind: message.kind,
    offerId: message.offerId,
    title: message.title,
    body: message.body,
    stage: message.data.stage,
    stageOrder: Number(message.data.stageOrder),
  };
  return JSON.stringify(payload);
}

/** RFC 8030 Topic (≤ 32 base64url characters), one per offer: a later push about the offer replaces an undelivered one. */
export function webPushTopic(message: PushMessage): string {
  return createHash('sha256').update(message.offerId).digest('base64url').slice(0, 32);
}

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payload encryption (RFC 8291), as the
 * `web-push` package builds the request; the request itself goes through the platform's outbound
 * client, because the endpoint is a URL a worker's browser sent us (README "Web Push").
 * One result per message, in order; a failure of one message never fails the others.
 */
export class WebPushTransport implements PushTransport {
  private readonly authorizations = new Map<string, { header: string; signedAt: number }>();
  private readonly now: () => number;

  constructor(
    private readonly client: WebPushHttpClient,
    private readonly options: WebPushTransportOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async sendEach(messages: PushMessage[]): Promise<PushResult[]> {
    const results: PushResult[] = new Array<PushResult>(messages.length);
    let next = 0;
    const worker = async () => {
      while (next < messages.length) {
        const index = next++;
        results[index] = await this.sendOne(messages[index]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 32, messages.length) }, worker));
    return results;
  }

  async close(): Promise<void> {
    await this.client.close?.();
  }

  private async sendOne(message: PushMessage): Promise<PushResult> {
    const problem = this.options.endpointProblem?.(message.token);
    if (problem) return webPushFailure('endpoint-not-allowed', problem);
    let request: OutboundRequest;
    try {
      request = this.request(message);
    } catch (error) {
      return webPushFailure('encryption', (error as Error).message);
    }
    try {
      const response = await this.client.send(request);
      return webPushResult(response.status, response.headers, response.body, this.now());
    } catch (error) {
      if (error instanceof OutboundRequestError) return webPushFailure(error.kind, error.message);
      return webPushFailure('unreachable', (error as Error).message);
    }
  }

  /** The encrypted request for one message, headers as RFC 8030 wants them. */
  request(message: PushMessage): OutboundRequest {
    if (!message.webPushKeys) throw new Error('no Web Push keys for this message');
    const details = webpush.generateRequestDetails({ endpoint: message.token, keys: message.webPushKeys }, webPushPayload(message), {
      // VAPID is added below, signed once per origin rather than once per message.
      vapidDetails: null as unknown as undefined,
      TTL: this.options.ttlSeconds,
      contentEncoding: 'aes128gcm',
      urgency: 'high',
      topic: webPushTopic(message),
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) {
      // undici sets Content-Length from the body itself.
      if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
    }
    headers.Authorization = this.authorization(new URL(message.token).origin);
    return { url: message.token, method: 'POST', headers, body: details.body ?? undefined, timeoutMs: this.options.timeoutMs, maxResponseBytes: 1024 };
  }

  private authorization(audience: string): string {
    const now = this.now();
    const known = this.authorizations.get(audience);
    if (known && now - known.signedAt < JWT_REUSE_MS) return known.header;
    const { vapid } = this.options;
    const headers = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm', Math.floor(now / 1000) + JWT_LIFETIME_S);
    if (this.authorizations.size >= 1_000) this.authorizations.clear();
    this.authorizations.set(audience, { header: headers.Authorization, signedAt: now });
    return headers.Authorization;
  }
}

/** Web Push when no VAPID keys are configured (outside production only): every push fails, nothing is sent. */
export class DisabledWebPushTransport implements PushTransport {
  async sendEach(messages: PushMessage[]): Promise<PushResult[]> {
    return messages.map(() => ({ success: false, errorCode: 'web-push/not-configured', errorMessage: 'VAPID keys are not configured' }));
  }
}
