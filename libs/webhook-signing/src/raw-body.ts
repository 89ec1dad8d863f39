import type { RawBody } from './signature.js';

/**
 * Signatures cover the body bytes as sent. A parsed JSON object cannot be verified (re-serialising
 * changes whitespace and key order), so passing one is a bug worth a clear error rather than a mismatch.
 */
export function assertRawBody(body: unknown): RawBody {
  if (typeof body === 'string' || body instanceof Uint8Array) {
    return body;
  }
  throw new TypeError('body must be the raw request body as a string or Buffer ("" when empty), not parsed JSON');
}
