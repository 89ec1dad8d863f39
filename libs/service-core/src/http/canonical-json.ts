import { createHash } from 'node:crypto';

/**
 * JSON text of a value with every object's keys in code-point order, so two bodies that differ only
 * in property order serialise the same. Array order is kept (it carries meaning). Properties whose
 * value is undefined are left out, as JSON.stringify does. Meant for validated bodies, whose depth
 * the request checks have already bounded (see json-input.ts).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const keys = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/**
 * SHA-256 (hex) of a validated request body's canonical form: what an Idempotency-Key repeat is
 * compared by. Give it the DTO, not the raw body: validation has already matched property names
 * case-insensitively to the DTO's spelling and dropped unknown ones.
 */
export function bodyFingerprint(dto: unknown): string {
  return createHash('sha256').update(canonicalJson(dto)).digest('hex');
}
