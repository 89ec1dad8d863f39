const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** The three HTTP-date forms a recipient must accept (RFC 9110 5.6.7); names are matched regardless of case. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

/**
 * `Retry-After` (RFC 9110 10.2.3): either delay-seconds or an HTTP-date. Returns the delay in ms
 * (0 for a date in the past), or undefined when the header is absent or not understood.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Anything else that is not an HTTP-date (e.g. "-5", "1.5", "soon", an ISO 8601 time) is ignored.
  const at = httpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** An HTTP-date in any of its three forms, as epoch ms; undefined when it is none of them or no real time. */
function httpDate(text: string, now: number): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(Number(match[3]), match[2], Number(match[1]), match.slice(4, 7));
  match = ASCTIME.exec(text);
  if (match) return utc(Number(match[6]), match[1], Number(match[2]), match.slice(3, 6));
  match = RFC_850.exec(text);
  if (!match) return undefined;
  // A two-digit year more than 50 years ahead is the most recent past year with those digits.
  const thisYear = new Date(now).getUTCFullYear();
  let year = thisYear - (thisYear % 100) + Number(match[3]);
  if (year > thisYear + 50) year -= 100;
  return utc(year, match[2], Number(match[1]), match.slice(4, 7));
}

function utc(year: number, monthName: string, day: number, [hour, minute, second]: string[]): number | undefined {
  const month = MONTHS.findIndex((name) => name.toLowerCase() === monthName.toLowerCase());
  const at = Date.UTC(year, month, day, Number(hour), Number(minute), Number(second));
  // Date.UTC rolls 31 Feb over into March and 24:00 into the next day: only a time that reads back as written exists.
  const written = `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}T${hour}:${minute}:${second}`;
  return new Date(at).toISOString().startsWith(written) ? at : undefined;
}
