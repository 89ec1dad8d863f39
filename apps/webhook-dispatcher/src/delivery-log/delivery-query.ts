import { isISO8601 } from 'class-validator';
import { isUuid } from '@availability/contracts';
import { pageFromQuery, ProblemException, singleQueryParam } from '@availability/service-core';
import { DELIVERY_STATUSES, type DeliveryFilter, type DeliveryStatus } from '../delivery/deliveries.repository.js';
import { WEBHOOK_TYPE_NAMES, WEBHOOK_TYPES, type WebhookType } from '../domain/webhook-call.js';

/** A date alone, or a date-time with its offset: a time without one would be read in the server's zone. */
const DATE_OR_ZONED_TIME = /^\d{4}-\d{2}-\d{2}(T.*(Z|[+-]\d{2}(:?\d{2})?))?$/i;

/** The filters of a delivery list, as both the operator's and the portal's lists take them. */
export type DeliveryListFilter = Omit<DeliveryFilter, 'organisationId'>;

/**
 * An ISO 8601 time in a query parameter or body field: a real date (no 30 February), with a time
 * zone when it has a time. Anything else is a 400 naming the field.
 */
export function timestampParam(field: string, raw: unknown): Date | undefined {
  const text = singleQueryParam(field, raw);
  if (text === undefined) return undefined;
  if (text.length > 40 || !isISO8601(text, { strict: true }) || !DATE_OR_ZONED_TIME.test(text)) {
    throw ProblemException.field(field, 'must be an ISO 8601 time with its offset, e.g. 2026-11-24T09:00:00Z');
  }
  return new Date(text);
}

/** A uuid query parameter, or a 400 naming it. */
function uuidParam(field: string, raw: unknown): string | undefined {
  const value = singleQueryParam(field, raw);
  if (value !== undefined && !isUuid(value)) throw ProblemException.field(field, 'must be a uuid');
  // The log's ids are lower case, as the platform makes them.
  return value?.toLowerCase();
}

/**
 * `?webhookId=`: the webhook-id header, `<event id>:<organisation id>`. Its event is searched for (by
 * its key), so a webhook id also names the event, which an eventId given beside it must agree with.
 */
function webhookIdParam(raw: unknown, eventId: string | undefined): { webhookId?: string; eventId?: string } {
  const webhookId = singleQueryParam('webhookId', raw);
  if (webhookId === undefined) return { eventId };
  const [event, organisation, ...rest] = webhookId.split(':');
  if (!isUuid(event) || !organisation || rest.length > 0 || webhookId.length > 256) {
    throw ProblemException.field('webhookId', 'must be <event id>:<organisation id>, as the webhook-id header');
  }
  if (eventId !== undefined && eventId !== event) throw ProblemException.field('webhookId', 'names another event than eventId');
  return { webhookId, eventId: event };
}

/**
 * `?status=&eventType=&eventId=&webhookId=&offerId=&workerId=&from=&to=&limit=&before=` of a delivery
 * list: each checked, or a 400 naming it. `from` is inclusive and `to` exclusive, on when the event
 * was recorded.
 */
export function deliveryListFilter(query: Record<string, unknown>, maxPageSize: number): DeliveryListFilter {
  const { limit, before } = pageFromQuery(query.limit, query.before, maxPageSize);
  const { eventId, webhookId } = webhookIdParam(query.webhookId, uuidParam('eventId', query.eventId));
  const offerId = uuidParam('offerId', query.offerId);
  const workerId = uuidParam('workerId', query.workerId);
  const status = singleQueryParam('status', query.status);
  const eventType = singleQueryParam('eventType', query.eventType);
  if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
    throw ProblemException.field('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  if (eventType !== undefined && !WEBHOOK_TYPE_NAMES.includes(eventType as WebhookType)) {
    throw ProblemException.field('eventType', `must be one of ${WEBHOOK_TYPE_NAMES.join(', ')}`);
  }
  const from = timestampParam('from', query.from);
  const to = timestampParam('to', query.to);
  if (from && to && to.getTime() <= from.getTime()) throw ProblemException.field('to', 'must be after from');
  return {
    eventId,
    webhookId,
    offerId,
    workerId,
    status: status as DeliveryStatus | undefined,
    eventSubject: eventType === undefined ? undefined : WEBHOOK_TYPES[eventType as WebhookType],
    from,
    to,
    before,
    limit,
  };
}
