/**
 * How a call to an integrator is signed, chosen per endpoint:
 * - `hmac`: the spec's `Timestamp` + `Authorization: hmac <hex>` (shared secret; covers method and path);
 * - `v1`: Standard Webhooks `webhook-signature: v1,<base64 HMAC>` (shared secret; covers id, timestamp, body);
 * - `v1a`: Standard Webhooks `webhook-signature: v1a,<base64 ed25519>` with `webhook-key-id` (the platform's
 *   published key; covers id, timestamp, body; verifiable without any shared secret).
 */
export type SignatureScheme = 'hmac' | 'v1' | 'v1a';

/** Every scheme, in the order the headers are built. */
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['hmac', 'v1', 'v1a'];

/** What an endpoint gets unless its organisation chose otherwise: both shared-secret schemes. */
export const DEFAULT_SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['hmac', 'v1'];

/**
 * A list of scheme names as one canonical list (known names only, no repeats, in
 * {@link SIGNATURE_SCHEMES} order), or `undefined` if it is not a non-empty array of known names.
 */
export function parseSignatureSchemes(value: unknown): SignatureScheme[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > 10) return undefined;
  if (!value.every((name) => typeof name === 'string' && (SIGNATURE_SCHEMES as readonly string[]).includes(name))) return undefined;
  return SIGNATURE_SCHEMES.filter((scheme) => value.includes(scheme));
}

/** Whether any of `schemes` needs the organisation's shared secret. */
export function needsSecret(schemes: readonly SignatureScheme[]): boolean {
  return schemes.includes('hmac') || schemes.includes('v1');
}
