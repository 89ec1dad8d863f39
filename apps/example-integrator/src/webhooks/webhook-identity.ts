import type { IncomingHttpHeaders } from 'node:http';

/**
 * A webhook's `webhook-id` as the platform forms it: `<eventId>:<organisationId>`. The ids of
 * `/test/auth` (`test-…`) and `/contact-suggestions` (`suggest-…`) calls name no event, so a
 * captured one replayed on a webhook's path (`v1` and `v1a` do not sign the path) is refused.
 */
const WEBHOOK_ID = /^[A-Za-z0-9-]{1,64}:[A-Za-z0-9-]{1,64}$/;

/** The request's webhook-id, or why it has none usable (the platform always sends exactly one). */
export function webhookIdOf(headers: IncomingHttpHeaders): { webhookId: string } | { problem: string } {
  const value = headers['webhook-id'];
  if (value === undefined) return { problem: 'a webhook must carry a webhook-id header' };
  if (typeof value !== 'string' || !WEBHOOK_ID.test(value)) return { problem: 'webhook-id must be one <eventId>:<organisationId>' };
  return { webhookId: value };
}

/**
 * What tells a repeat from a new event: the signed body's `eventId` where there is one, else the
 * webhook-id. Every scheme signs the body, but `hmac` not the webhook-id, so a replay could come with
 * a new id; on a GET webhook (no body) the id is all there is (`v1` and `v1a` sign it).
 */
export function deduplicationKey(webhookId: string, body: string): string {
  if (body.trimStart().startsWith('{')) {
    try {
      const eventId = (JSON.parse(body) as { eventId?: unknown }).eventId;
      if (typeof eventId === 'string' && eventId !== '') return `event:${eventId}`;
    } catch {
      // Not JSON: the id is all there is.
    }
  }
  return `webhook:${webhookId}`;
}
