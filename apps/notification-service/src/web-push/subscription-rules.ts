import { ECDH } from 'node:crypto';
import { forbiddenReason } from '@availability/outbound-http';
import type { FieldErrors } from '@availability/service-core';

/** Browsers' endpoints are 150–400 characters; anything near this bound is not a push service's. */
export const MAX_ENDPOINT_LENGTH = 1024;
/** 65 bytes in base64url without padding are 87 characters; 88 with one `=`. */
export const MAX_P256DH_LENGTH = 88;
/** 16 bytes in base64url are 22 characters; 24 with padding. */
export const MAX_AUTH_LENGTH = 24;
/** Latest expirationTime accepted: year 2100 (a browser gives days or weeks ahead, or null). */
export const MAX_EXPIRATION_TIME = Date.UTC(2100, 0, 1);

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface SubscriptionRules {
  /** Development and tests only (WEB_PUSH_ALLOW_LOOPBACK): http:// and https:// push services on loopback. */
  allowLoopback: boolean;
}

export interface SubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  expirationTime?: number | null;
}

/** A base64url value decoded, or undefined when it is not base64url (standard base64's `+` and `/` are refused). */
export function decodeBase64url(value: string): Buffer | undefined {
  if (!BASE64URL.test(value)) return undefined;
  const unpadded = value.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return undefined;
  return Buffer.from(unpadded, 'base64url');
}

/** Why the endpoint is not a push service URL the platform may call, or undefined. */
export function endpointProblem(endpoint: string, rules: SubscriptionRules): string | undefined {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) return `endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters`;
  if (!PRINTABLE_ASCII.test(endpoint)) return 'endpoint must be a URL of printable ASCII characters without spaces';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an absolute URL';
  }
  if (url.username || url.password) return 'endpoint must not carry credentials';
  if (url.hash) return 'endpoint must not have a fragment';
  const loopbackName = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol === 'http:') {
    if (!rules.allowLoopback) return 'endpoint must be an https URL';
    if (!loopbackName) return 'endpoint may be http only on a loopback push service (127.0.0.1, [::1] or localhost)';
    return undefined;
  }
  if (url.protocol !== 'https:') return 'endpoint must be an https URL';
  if (url.hostname === 'localhost' && !rules.allowLoopback) return 'endpoint must be a public push service, not localhost';
  // An address written in the URL is checked now; a name is checked when it resolves, before each send.
  const reason = forbiddenReason(url.hostname.replace(/^\[|\]$/g, ''), { allowLoopback: rules.allowLoopback, allowPrivate: false });
  if (reason && reason !== 'not an IP address') return `endpoint must be a public push service: ${reason}`;
  return undefined;
}

/** Why p256dh is not an uncompressed P-256 public key (65 bytes, 0x04, a point on the curve), or undefined. */
export function p256dhProblem(p256dh: string): string | undefined {
  const key = decodeBase64url(p256dh);
  if (!key) return 'keys.p256dh must be base64url';
  if (key.length !== 65 || key[0] !== 0x04) return 'keys.p256dh must be an uncompressed P-256 public key (65 bytes)';
  try {
    // Refuses points that are not on the curve: such a key would make every encryption fail.
    ECDH.convertKey(key, 'prime256v1', undefined, undefined, 'uncompressed');
  } catch {
    return 'keys.p256dh is not a point on the P-256 curve';
  }
  return undefined;
}

export function authProblem(auth: string): string | undefined {
  const secret = decodeBase64url(auth);
  if (!secret) return 'keys.auth must be base64url';
  if (secret.length !== 16) return 'keys.auth must be a 16-byte authentication secret';
  return undefined;
}

export function expirationTimeProblem(expirationTime: number | null | undefined, now = Date.now()): string | undefined {
  if (expirationTime === null || expirationTime === undefined) return undefined;
  if (!Number.isSafeInteger(expirationTime) || expirationTime < 0) return 'expirationTime must be a time in milliseconds since 1970, or null';
  if (expirationTime > MAX_EXPIRATION_TIME) return 'expirationTime must be before the year 2100';
  if (expirationTime <= now) return 'expirationTime has passed: subscribe again';
  return undefined;
}

/**
 * Every problem of a subscription whose shape the DTO has already checked (strings, lengths, a
 * number or null), by field, the way validation errors name them.
 */
export function subscriptionProblems(input: SubscriptionInput, rules: SubscriptionRules, now = Date.now()): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, problem: string | undefined) => {
    if (problem) (errors[field] ??= []).push(problem);
  };
  add('endpoint', endpointProblem(input.endpoint, rules));
  add('keys.p256dh', p256dhProblem(input.keys.p256dh));
  add('keys.auth', authProblem(input.keys.auth));
  add('expirationTime', expirationTimeProblem(input.expirationTime, now));
  return errors;
}
