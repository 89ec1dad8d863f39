/**
 * Incoming headers as receivers hold them: Node's `IncomingHttpHeaders` (lower-case keys,
 * `string | string[] | undefined` values), a plain object with any key casing, or a fetch `Headers`.
 */
export type HeaderSource =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

/** Result of reading one header: absent, present, or present in a way we refuse to interpret. */
export type HeaderRead =
  | { readonly status: 'missing' }
  | { readonly status: 'present'; readonly value: string }
  | { readonly status: 'malformed' };

const MISSING: HeaderRead = { status: 'missing' };
const MALFORMED: HeaderRead = { status: 'malformed' };

export interface ReadHeaderOptions {
  /**
   * How to combine repeated occurrences of a list-valued header (e.g. `', '` for `Authorization`).
   * Without it, a header seen more than once is malformed: we never guess which copy to trust.
   */
  readonly listSeparator?: string;
  /** Values longer than this (after combining) are malformed, which keeps verification cost bounded. */
  readonly maxLength: number;
}

/** Reads `name` case-insensitively. Empty values count as missing. Never throws. */
export function readHeader(headers: HeaderSource, name: string, options: ReadHeaderOptions): HeaderRead {
  const values = collectValues(headers, name.toLowerCase()).filter((value) => value !== '');
  if (values.length === 0) {
    return MISSING;
  }
  if (values.length > 1 && options.listSeparator === undefined) {
    return MALFORMED;
  }
  const value = values.join(options.listSeparator ?? '');
  return value.length > options.maxLength ? MALFORMED : { status: 'present', value };
}

function collectValues(headers: HeaderSource, lowerName: string): string[] {
  if (typeof headers !== 'object' || headers === null) {
    return [];
  }
  if (isFetchHeaders(headers)) {
    const value = headers.get(lowerName);
    return typeof value === 'string' ? [value] : [];
  }
  const values: string[] = [];
  for (const key of Object.keys(headers)) {
    // The length check spares lower-casing every other header name.
    if (key.length === lowerName.length && key.toLowerCase() === lowerName) {
      appendValue(values, headers[key]);
    }
  }
  return values;
}

function appendValue(values: string[], raw: unknown): void {
  if (typeof raw === 'string') {
    values.push(raw);
  } else if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item === 'string') {
        values.push(item);
      }
    }
  }
}

function isFetchHeaders(headers: HeaderSource): headers is { get(name: string): string | null } {
  return typeof (headers as { get?: unknown }).get === 'function';
}
