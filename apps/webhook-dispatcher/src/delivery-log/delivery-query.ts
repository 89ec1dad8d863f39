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

/**
 * `?status=&eventType=&eventId=&from=&to=&limit=&before=` of a delivery list: each checked, or a 400
 * naming it. `from` is inclusive and `to` exclusive, on when the event was recorded.
 */
export function deliveryListFilter(query: Record<string, unknown>, maxPageSize: number): DeliveryListFilter {
  const { limit, before } = pageFromQuery(query.limit, query.before, maxPageSize);
  const eventId = singleQueryParam('eventId', query.eventId);
  const status = singleQueryParam('status', query.status);
  const eventType = singleQueryParam('eventType', query.eventType);
  if (eventId !== undefined && !isUuid(eventId)) throw ProblemException.field('eventId', 'must be a uuid');
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
    status: status as DeliveryStatus | undefined,
    eventSubject: eventType === undefined ? undefined : WEBHOOK_TYPES[eventType as WebhookType],
    from,
    to,
    before,
    limit,
  };
}
