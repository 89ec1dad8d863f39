import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a verified webhook is a test event the organisation sent itself from the platform's portal:
 * the `webhook-test: true` header, or `"test": true` in the body (GET calls have none). Either mark is
 * enough; a test's ids are made up, so it is recorded as a test and never acted on.
 */
export function isTestEvent(headers: IncomingHttpHeaders, body: string): boolean {
  const header = headers['webhook-test'];
  if ((Array.isArray(header) ? header : [header]).some((value) => value?.trim().toLowerCase() === 'true')) return true;
  if (!body.trimStart().startsWith('{')) return false;
  try {
    return (JSON.parse(body) as { test?: unknown }).test === true;
  } catch {
    return false;
  }
}
