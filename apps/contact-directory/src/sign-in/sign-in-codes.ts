import { randomBytes } from 'node:crypto';
import { hashToken } from '@availability/auth';

/** A sign-in code: 32 random bytes, base64url (43 characters). Only its SHA-256 is stored. */
const CODE = /^[A-Za-z0-9_-]{43}$/;
/** Longest label of one account in the e-mail (the request's schema allows 500). */
const MAX_LABEL_LENGTH = 200;

export interface IssuedSignInCode {
  code: string;
  codeHash: string;
}

export function issueSignInCode(): IssuedSignInCode {
  const code = randomBytes(32).toString('base64url');
  return { code, codeHash: hashToken(code) };
}

/** The stored hash of a presented code; undefined for anything that cannot be a code (never looked up). */
export function signInCodeHash(code: string): string | undefined {
  return CODE.test(code) ? hashToken(code) : undefined;
}

/** What an address's e-mail pace is kept under: the SHA-256 of the address in lower case, never the address. */
export function mailPaceKey(email: string): string {
  return hashToken(email.toLowerCase());
}

/** Whole minutes a link works, as the e-mail says (rounded up, at least 1). */
export function linkMinutes(ttlSeconds: number): number {
  return Math.min(1440, Math.max(1, Math.ceil(ttlSeconds / 60)));
}

/**
 * How an account is named in the sign-in e-mail: a portal user by its organisation; a worker by its
 * name and the organisations it works with (a worker belongs to none, one or several).
 */
export function accountLabel(account: { kind: 'user'; organisationName: string } | { kind: 'worker'; name: string; organisationNames: string[] }): string {
  const label = account.kind === 'user' ? account.organisationName : account.organisationNames.length > 0 ? `${account.name} (${account.organisationNames.join(', ')})` : account.name;
  return label.length > MAX_LABEL_LENGTH ? `${label.slice(0, MAX_LABEL_LENGTH - 1)}…` : label;
}
