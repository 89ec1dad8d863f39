import { type Static, Type } from '@sinclair/typebox';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID = new RegExp(UUID_PATTERN);

/** A UUID as PostgreSQL and `randomUUID` write it (any case accepted). */
export const Uuid = Type.String({ pattern: UUID_PATTERN });

/** A value `Uuid` accepts: a UUID in its usual form, any case (ids in URLs, ids written into SQL). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
/** A worker's id as the directory issued it: never empty, otherwise opaque to consumers. */
export const WorkerId = Type.String({ minLength: 1 });
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
