const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Exactly the form the directory issues ids in (lowercase). Ids that other services store and
 * compare as strings (worker ids on offers) must match this, so `ABC…` is not taken for `abc…`.
 */
export function isCanonicalUuid(value: unknown): value is string {
  return typeof value === 'string' && CANONICAL_UUID.test(value);
}
