import { createHash, timingSafeEqual } from 'node:crypto';

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
