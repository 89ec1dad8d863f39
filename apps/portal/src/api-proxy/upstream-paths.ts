import type { SignedInPerson } from '../session/portal-session.js';

/** The services the portal's pages call, by the name in `/api/<name>/…`. */
export const UPSTREAM_SERVICES = ['directory', 'offers', 'notifications', 'webhooks'] as const;
export type UpstreamService = (typeof UPSTREAM_SERVICES)[number];

/** Characters of a path the services' APIs use; anything else (encoded slashes, dots, backslashes) is refused. */
const PATH = /^\/[A-Za-z0-9\-_~/]*$/;

/**
 * Whether a signed-in person's page may call this path of a service (the part after `/api/<name>`,
 * query excluded): portal users only the services' `/portal/…` APIs, workers only their `/worker/…`
 * APIs. The services check the credential and the organisation on every call; this keeps the
 * portal from being a way to reach anything else (operator APIs, metrics) with a session.
 */
export function mayCall(kind: SignedInPerson['kind'], path: string): boolean {
  if (!PATH.test(path) || path.includes('//')) return false;
  const area = kind === 'portal-user' ? '/portal/' : '/worker/';
  return path.startsWith(area) && path.length > area.length;
}
