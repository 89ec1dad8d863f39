/**
 * `Retry-After` (RFC 9110 10.2.3): either delay-seconds or an HTTP-date. Returns the delay in ms
 * (0 for a date in the past), or undefined when the header is absent or not understood.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date always names a weekday and GMT; anything else (e.g. "-5", "1.5", "soon") is ignored.
  if (!/^[A-Za-z]{3},? /.test(text) || !/GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
}
