// Exact shape of the `Timestamp` header: UTC, whole seconds, `Z` suffix.
const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
// Unix seconds as a plain decimal; 12 digits reach far past any realistic clock.
const UNIX_SECONDS_PATTERN = /^\d{1,12}$/;

/** Whole unix seconds of `date` (sub-second precision is dropped, never rounded up). */
export function toUnixSeconds(date: Date): number {
  const millis = date.getTime();
  if (!Number.isFinite(millis)) {
    throw new RangeError('Invalid Date');
  }
  return Math.floor(millis / 1000);
}

/** `2026-11-22T10:55:03Z`: the value of the `Timestamp` header for `date`. */
export function formatTimestamp(date: Date): string {
  return formatUnixSeconds(toUnixSeconds(date));
}

// Signing and verifying happen many times a second: the last second formatted is kept.
let lastSeconds = Number.NaN;
let lastFormatted = '';

/** Same as {@link formatTimestamp}, from unix seconds. */
export function formatUnixSeconds(seconds: number): string {
  if (seconds === lastSeconds) return lastFormatted;
  const formatted = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  lastSeconds = seconds;
  lastFormatted = formatted;
  return formatted;
}

/**
 * Unix seconds of a `Timestamp` header value, or `undefined` unless it is exactly in the format we send.
 * The round trip rejects impossible dates (`2026-02-30T...`) that `Date.parse` would silently roll over.
 */
export function parseTimestamp(value: string): number | undefined {
  if (!ISO_TIMESTAMP_PATTERN.test(value)) {
    return undefined;
  }
  // A receiver sees the same second many times: the last one formatted is known to round-trip.
  if (value === lastFormatted) {
    return lastSeconds;
  }
  const millis = Date.parse(value);
  if (!Number.isFinite(millis)) {
    return undefined;
  }
  const seconds = millis / 1000;
  return formatUnixSeconds(seconds) === value ? seconds : undefined;
}

/** Unix seconds of a `webhook-timestamp` header value, or `undefined` if it is not a plain decimal. */
export function parseUnixSeconds(value: string): number | undefined {
  return UNIX_SECONDS_PATTERN.test(value) ? Number(value) : undefined;
}

/** True when `timestampSeconds` is at most `toleranceSeconds` away from `now`, in either direction. */
export function isWithinTolerance(timestampSeconds: number, now: Date, toleranceSeconds: number): boolean {
  return Math.abs(toUnixSeconds(now) - timestampSeconds) <= toleranceSeconds;
}
