import { createHash, timingSafeEqual } from 'node:crypto';

/** Operator tokens shorter than this are refused at start-up in production. */
export const MIN_PRODUCTION_ADMIN_TOKEN_LENGTH = 32;

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(authorization: unknown): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/**
 * Compares an operator token in constant time: both sides are hashed first, so neither the content
 * nor the length of the expected token leaks through timing.
 */
export function adminTokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The start-up problem with an operator token setting, if any (the message names the variable, never the value). */
export function adminTokenProblem(variable: string, token: string, nodeEnv: string): string | undefined {
  if (nodeEnv === 'production' && token.length < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH) {
    return `${variable}: must be set to at least ${MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters when NODE_ENV is production`;
  }
  return undefined;
}
