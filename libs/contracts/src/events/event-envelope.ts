import { type Static, type StringOptions, Type } from '@sinclair/typebox';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID = new RegExp(UUID_PATTERN);

/** A UUID as PostgreSQL and `randomUUID` write it (any case accepted). */
export const Uuid = Type.String({ pattern: UUID_PATTERN });

/** A value `Uuid` accepts: a UUID in its usual form, any case (ids in URLs, ids written into SQL). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
/**
 * Text as every edge of the platform takes it (json-input.ts): no NUL, and no UTF-16 surrogate without
 * its pair. PostgreSQL stores neither, and a lone surrogate has no UTF-8 or URL form, so an event
 * holding one could never be handled: the schema says so, and a consumer parks it at once.
 */
const TEXT_PATTERN = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';
export const EventText = (options: StringOptions = {}) => Type.String({ ...options, pattern: TEXT_PATTERN });

/** A worker's id as the directory issued it: never empty, otherwise opaque to consumers. */
export const WorkerId = EventText({ minLength: 1 });
/** ISO 8601 in UTC, as `Date.toISOString()` writes it. */
export const UtcTimestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$' });

/**
 * Fields every event payload carries (DESIGN 2). `eventId` is also the JetStream `Nats-Msg-Id`.
 * Events are open: a consumer ignores fields it does not know, so a producer may add one first.
 */
export const EventEnvelope = Type.Object({
  eventId: Uuid,
  occurredAt: UtcTimestamp,
  organisationId: Uuid,
});
export type EventEnvelope = Static<typeof EventEnvelope>;
