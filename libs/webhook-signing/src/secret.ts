import { MAX_SIGNING_SECRETS } from './constants.js';

// Visible ASCII only. Two reasons: (1) the key is the secret's UTF-8 bytes, while `standardwebhooks`
// in `format: 'raw'` takes one byte per UTF-16 code unit, so the two agree only for ASCII; (2) it turns
// the classic "secret read from a file with a trailing newline" mistake into a loud error.
const SECRET_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Throws a TypeError unless `secret` is a usable signing secret. Secrets come from configuration,
 * not from requests, so a bad one is a programming error and is allowed to throw.
 */
export function assertValidSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('webhook secret must be a non-empty string');
  }
  if (!SECRET_PATTERN.test(secret)) {
    throw new TypeError('webhook secret must contain only visible ASCII characters (no whitespace)');
  }
}

/** Accepts one secret or a list (rotation) and returns a validated, non-empty list. */
export function normaliseSecrets(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError('at least one webhook secret is required');
  }
  secrets.forEach(assertValidSecret);
  return secrets;
}

/** Signing uses one secret, or two while rotating; more would only bloat every request. */
export function normaliseSigningSecrets(secrets: readonly string[]): readonly string[] {
  const validated = normaliseSecrets(secrets);
  if (validated.length > MAX_SIGNING_SECRETS) {
    throw new TypeError(`at most ${MAX_SIGNING_SECRETS} signing secrets are allowed`);
  }
  return validated;
}
