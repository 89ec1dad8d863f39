import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * The shortest retention, in days, of a log whose rows also recognise an event already handled (a
 * webhook delivery, a worker's notification, a push, an answer): longer than the stream keeps events
 * by a day (or by the stream's own age, when that is under a day), so no copy of an event
 * (redelivered, or replayed by a consumer reset) can arrive after the row that would recognise it is
 * gone and be handled a second time. The margin covers clocks that differ between hosts.
 */
export function eventRecordMinRetentionDays(streamMaxAgeDays: number): number {
  return streamMaxAgeDays + Math.min(1, streamMaxAgeDays);
}

/**
 * A retention setting in days (fractions allowed) of a log that recognises events: at least
 * eventRecordMinRetentionDays of the same config's EVENTS_STREAM_MAX_AGE_DAYS; `orZero` lets 0 mean
 * "until handled".
 */
export function OutlivesEventStream(options: { orZero?: boolean } = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: options.orZero ? 'zero, or longer than the event stream keeps events (EVENTS_STREAM_MAX_AGE_DAYS, plus a day)' : 'longer than the event stream keeps events (EVENTS_STREAM_MAX_AGE_DAYS, plus a day)',
      validator: {
        validate: (value: unknown, args) => {
          if (options.orZero && value === 0) return true;
          const streamDays = (args?.object as { EVENTS_STREAM_MAX_AGE_DAYS?: unknown }).EVENTS_STREAM_MAX_AGE_DAYS;
          return typeof value === 'number' && typeof streamDays === 'number' && value >= eventRecordMinRetentionDays(streamDays);
        },
      },
    },
    validationOptions,
  );
}
