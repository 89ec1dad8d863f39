import type { SignedInPerson } from './signed-in-person.js';

export type { SignedInPerson };

/** What the session cookie holds: the credential the services check, and who it belongs to. */
export interface PortalSession {
  token: string;
  person: SignedInPerson;
}

/** Largest cookie value read: a session is a few hundred bytes, and nothing larger is parsed. */
const MAX_COOKIE_LENGTH = 3_000;
const TOKEN = /^(put|wkt)_[A-Za-z0-9_-]{10,200}$/;

export function encodeSession(session: PortalSession): string {
  return Buffer.from(JSON.stringify(session), 'utf8').toString('base64url');
}

/**
 * The session a (verified) cookie value holds, or undefined when it is malformed or has expired at
 * `now`. The cookie's signature is checked before this runs; this guards the shape and the clock.
 */
export function decodeSession(value: string, now: Date): PortalSession | undefined {
  if (value.length > MAX_COOKIE_LENGTH) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isSession(parsed)) return undefined;
  const expiresAt = Date.parse(parsed.person.expiresAt);
  if (!Number.isFinite(expiresAt) || expiresAt <= now.getTime()) return undefined;
  return parsed;
}

function isSession(value: unknown): value is PortalSession {
  if (typeof value !== 'object' || value === null) return false;
  const { token, person } = value as Partial<PortalSession>;
  if (typeof token !== 'string' || !TOKEN.test(token)) return false;
  if (typeof person !== 'object' || person === null) return false;
  if (person.kind !== 'portal-user' && person.kind !== 'worker') return false;
  if (token.startsWith('put_') !== (person.kind === 'portal-user')) return false;
  return typeof person.id === 'string' && typeof person.name === 'string' && typeof person.expiresAt === 'string';
}
