import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SignedInPerson } from './signed-in-person.js';

export type { SignedInPerson };

/** A session as the portal keeps it: the credential the services check, and who it belongs to. */
export interface PortalSession {
  token: string;
  person: SignedInPerson;
}

/**
 * A session id: 32 random bytes, base64url. It is all the cookie carries; the session itself (its
 * token above all) stays in the portal's store, so signing out there ends every copy of the cookie.
 */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const TOKEN = /^(put|wkt)_[A-Za-z0-9_-]{10,200}$/;
/** Largest stored record read: a session is a few hundred bytes. */
const MAX_RECORD_LENGTH = 4_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

/**
 * Where a session is kept: derived from its id one way, so the store's keys are not cookies (and the
 * record's key, derived for another purpose, cannot be had from the store either).
 */
export function sessionKey(id: string): string {
  return derive(id, 'portal session key').toString('base64url');
}

/**
 * The stored record: the session encrypted (AES-256-GCM) with a key derived from its id, so what
 * the store holds gives nobody a token without the cookie.
 */
export function sealSession(id: string, session: PortalSession): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derive(id, 'portal session record'), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(session), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The session a record holds, or undefined when it does not open with this id, is malformed, or has expired at `now`. */
export function openSession(id: string, record: string, now: Date): PortalSession | undefined {
  if (record.length > MAX_RECORD_LENGTH) return undefined;
  let parsed: unknown;
  try {
    const bytes = Buffer.from(record, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', derive(id, 'portal session record'), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    parsed = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isSession(parsed)) return undefined;
  const expiresAt = Date.parse(parsed.person.expiresAt);
  if (!Number.isFinite(expiresAt) || expiresAt <= now.getTime()) return undefined;
  return parsed;
}

/** Milliseconds the session has left at `now` (0 when it has none): its record lives exactly as long. */
export function lifetimeLeft(session: PortalSession, now: Date): number {
  const left = Date.parse(session.person.expiresAt) - now.getTime();
  return Number.isFinite(left) && left > 0 ? left : 0;
}

function derive(id: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(id, 'base64url'), Buffer.alloc(0), purpose, 32));
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
