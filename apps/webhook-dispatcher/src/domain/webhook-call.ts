import { type ContactAddedEvent, EventSubject, type OfferResponseRecordedEvent } from '@availability/contracts';

/**
 * The webhook types as integrators and the portal name them, and the event each is made from. Every
 * delivery's `eventSubject` is one of these events.
 */
export const WEBHOOK_TYPES = {
  'offer-response': EventSubject.OfferResponseRecorded,
  'contact-added': EventSubject.ContactAdded,
} as const satisfies Record<string, EventSubject>;
export type WebhookType = keyof typeof WEBHOOK_TYPES;
export const WEBHOOK_TYPE_NAMES = Object.keys(WEBHOOK_TYPES) as WebhookType[];

/** The webhook type of an event subject; null for a subject that makes no webhook. */
export function webhookTypeOf(subject: string): WebhookType | null {
  return WEBHOOK_TYPE_NAMES.find((type) => WEBHOOK_TYPES[type] === subject) ?? null;
}

/** The header that marks a test delivery (its body, when it has one, says `"test": true` too). */
export const WEBHOOK_TEST_HEADER = 'webhook-test';

/**
 * The header that marks a redelivery (an attempt series an operator or the organisation started again):
 * it may carry an answer older than one already delivered, sent because it was asked for.
 */
export const WEBHOOK_REDELIVERY_HEADER = 'webhook-redelivery';

/** One HTTP call to an integrator, independent of where its service lives. */
export interface WebhookCall {
  /** Whose service is called. */
  organisationId: string;
  eventId: string;
  subject: string;
  method: 'GET' | 'POST';
  /** Route below the integrator's base URL, starting with `/`. */
  path: string;
  /** Exact bytes sent (and signed); '' for no body. */
  body: string;
  /** A test event an organisation sent itself from the portal: marked as such, in the body and a header. */
  test?: boolean;
}

/**
 * `offers.response.recorded` → `POST /offer/response` to the offer's sending organisation (DESIGN 4).
 * The event has been checked against its schema before it gets here.
 */
export function offerResponseCall(
  event: Pick<OfferResponseRecordedEvent, 'eventId' | 'organisationId' | 'offerId' | 'workerId' | 'response' | 'respondedAt' | 'sequence'>,
  test = false,
): WebhookCall {
  // Key order is part of the contract (DESIGN 4): eventId, offerId, workerId, response, respondedAt,
  // then `sequence` (absent on an event from an older producer: it is sent without one) and, on a
  // test event, `test: true` last (both optional fields of the contract).
  const body = JSON.stringify({
    eventId: event.eventId,
    offerId: event.offerId,
    workerId: event.workerId,
    response: event.response,
    respondedAt: event.respondedAt,
    ...(event.sequence === undefined ? {} : { sequence: event.sequence }),
    ...(test ? { test: true } : {}),
  });
  const call: WebhookCall = { organisationId: event.organisationId, eventId: event.eventId, subject: EventSubject.OfferResponseRecorded, method: 'POST', path: '/offer/response', body };
  return test ? { ...call, test } : call;
}

/** `contacts.added` → `GET /contact/new/{workerId}` to the organisation the worker added (DESIGN 4). */
export function contactAddedCall(event: Pick<ContactAddedEvent, 'eventId' | 'organisationId' | 'workerId'>, test = false): WebhookCall {
  const path = `/contact/new/${encodeURIComponent(event.workerId)}`;
  const call: WebhookCall = { organisationId: event.organisationId, eventId: event.eventId, subject: EventSubject.ContactAdded, method: 'GET', path, body: '' };
  return test ? { ...call, test } : call;
}

/**
 * A test event of `type` for an organisation to send itself: the call a real event of that type
 * makes, with made-up ids (so nothing in the integrator's system matches them), marked as a test.
 * `newId` and `now` are injected so the call is reproducible in tests.
 */
export function testCall(type: WebhookType, organisationId: string, newId: () => string, now: Date): WebhookCall {
  const eventId = newId();
  switch (type) {
    case 'offer-response':
      return offerResponseCall({ eventId, organisationId, offerId: newId(), workerId: newId(), response: 'applied', respondedAt: now.toISOString(), sequence: 1 }, true);
    case 'contact-added':
      return contactAddedCall({ eventId, organisationId, workerId: newId() }, true);
  }
}

/** The same `webhook-id` on every attempt and redelivery of one event to one organisation. */
export function webhookIdFor(eventId: string, organisationId: string): string {
  return `${eventId}:${organisationId}`;
}

/**
 * BullMQ job id of one attempt of a delivery: deterministic, so a repeated event, a crash or the
 * recovery sweep never queues the same attempt twice. (BullMQ refuses custom ids with one `:`, hence
 * `_`.) Each operator redelivery starts a new series; `attemptNo` counts from 1 within the series.
 * An attempt released from a hold is named by the hold (`heldSince`): the job that held it may not
 * have finished when the release comes, and under its own id the released job would be dropped as a
 * repeat of it.
 */
export function jobIdFor(eventId: string, organisationId: string, series: number, attemptNo: number, heldSince?: string): string {
  const base = `wh_${eventId}_${organisationId}`;
  const attempt = `${series === 0 ? base : `${base}_r${series}`}_a${attemptNo}`;
  return heldSince === undefined ? attempt : `${attempt}_h${heldSince}`;
}

/**
 * The absolute URL of `path` below an integrator's base URL, and the path-with-query as it appears on
 * the request line (what the `hmac` signature covers). Works with or without a trailing slash and
 * keeps the base URL's own path prefix and query.
 */
export function targetUrl(baseUrl: string, path: string): Readonly<{ url: string; pathWithQuery: string }> {
  // Most calls go to the same few URLs (`/offer/response` of each organisation): parse each once.
  const key = `${baseUrl}\n${path}`;
  let target = targetUrls.get(key);
  if (!target) {
    target = buildTargetUrl(baseUrl, path);
    if (targetUrls.size >= TARGET_URL_CACHE_SIZE) targetUrls.clear();
    targetUrls.set(key, target);
  }
  return target;
}

const TARGET_URL_CACHE_SIZE = 10_000;
const targetUrls = new Map<string, Readonly<{ url: string; pathWithQuery: string }>>();

function buildTargetUrl(baseUrl: string, path: string): { url: string; pathWithQuery: string } {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const url = new URL(base.toString());
  url.pathname = `${prefix}${path}`;
  url.hash = '';
  return { url: url.toString(), pathWithQuery: `${url.pathname}${url.search}` };
}

/** The user-agent of every call. */
export const WEBHOOK_USER_AGENT = 'AvailabilityPlatform-Webhooks/1.0';

/**
 * The headers each attempt signs anew (its own time, in every scheme the organisation has then): not
 * kept in the log, so shown by name only.
 */
export const PER_ATTEMPT_HEADERS = ['webhook-timestamp', 'webhook-signature', 'webhook-key-id', 'Timestamp', 'Authorization'] as const;

/** The headers of a call that are the same on every attempt, beside the signature's. */
export function unsignedHeaders(call: Pick<WebhookCall, 'body' | 'test'> & { series?: number }): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': WEBHOOK_USER_AGENT };
  if (call.body !== '') headers['content-type'] = 'application/json';
  // A test event says so in a header as well as in its body (a GET has none), so no integrator takes it for a real one.
  if (call.test) headers[WEBHOOK_TEST_HEADER] = 'true';
  if ((call.series ?? 0) > 0) headers[WEBHOOK_REDELIVERY_HEADER] = 'true';
  return headers;
}

/** A delivery's request as every attempt sends it: the signature headers are computed per attempt. */
export interface RequestAsSent {
  method: string;
  url: string | null;
  headers: Record<string, string>;
  perAttemptHeaders: string[];
  body: string;
}

export function requestAsSent(call: Pick<WebhookCall, 'body' | 'test'> & { method: string; webhookId: string; url: string | null; series?: number }): RequestAsSent {
  return {
    method: call.method,
    url: call.url,
    headers: { 'webhook-id': call.webhookId, ...unsignedHeaders(call) },
    perAttemptHeaders: [...PER_ATTEMPT_HEADERS],
    body: call.body,
  };
}
