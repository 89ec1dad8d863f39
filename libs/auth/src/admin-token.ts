// Shared with /metrics, which service-core serves without depending on this lib.
export { adminTokenMatches, bearerToken } from '@availability/service-core';

/** Operator tokens shorter than this are refused at start-up in production. */
export const MIN_PRODUCTION_ADMIN_TOKEN_LENGTH = 32;

/** The start-up problem with an operator token setting, if any (the message names the variable, never the value). */
export function adminTokenProblem(variable: string, token: string, nodeEnv: string): string | undefined {
  if (nodeEnv === 'production' && token.length < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH) {
    return `${variable}: must be set to at least ${MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters when NODE_ENV is production`;
  }
  return undefined;
}
