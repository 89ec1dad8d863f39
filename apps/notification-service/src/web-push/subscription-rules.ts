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

/**
 * The push services of the major browsers (WEB_PUSH_SERVICE_HOSTS's default): Chrome, Edge's
 * Chromium and most others use FCM, Firefox Mozilla's autopush, Edge also WNS, Safari Apple's.
 */
export const DEFAULT_PUSH_SERVICE_HOSTS = 'fcm.googleapis.com,updates.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com';

/**
 * One entry of WEB_PUSH_SERVICE_HOSTS: a host name of at least two labels, or `*.` and such a name
 * (the `*` standing for one label). No bare `*` or `*.tld`: the list never opens to any host.
 */
export const PUSH_SERVICE_HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;

export interface SubscriptionRules {
  /** Development and tests only (WEB_PUSH_ALLOW_LOOPBACK): http:// and https:// push services on loopback, any port. */
  allowLoopback: boolean;
  /** Host names (or `*.` one label under a name) of the push services endpoints may be on (WEB_PUSH_SERVICE_HOSTS). */
  pushServiceHosts: readonly string[];
}

/** WEB_PUSH_SERVICE_HOSTS as a list, lower-case (its config check has refused anything but names and `*.` names). */
export function pushServiceHosts(setting: string): string[] {
  return setting
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
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

/**
 * Why the endpoint is not a push service URL the platform may call, or undefined: https on 443 at a
 * host of the allow-list (push services are nowhere else, and an endpoint comes from a browser, so
 * from a worker: no other port or host may be made a target), or, where allowed, a loopback push
 * service (development and tests) on any port.
 */
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
  if (rules.allowLoopback && LOOPBACK_HOSTS.has(url.hostname)) {
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'endpoint must be an https URL';
  }
  if (url.protocol === 'http:' && rules.allowLoopback) return 'endpoint may be http only on a loopback push service (127.0.0.1, [::1] or localhost)';
  if (url.protocol !== 'https:') return 'endpoint must be an https URL';
  // The URL parser drops the default port, so `:443` written out reads as none.
  if (url.port !== '') return 'endpoint must be on port 443, where push services are';
  if (url.hostname === 'localhost') return 'endpoint must be a public push service, not localhost';
  const reason = forbiddenReason(url.hostname.replace(/^\[|\]$/g, ''), { allowLoopback: false, allowPrivate: false });
  if (reason && reason !== 'not an IP address') return `endpoint must be a public push service: ${reason}`;
  if (!rules.pushServiceHosts.some((pattern) => hostMatches(pattern, url.hostname))) {
    return `endpoint must be at a browser's push service; ${url.hostname} is not one the platform sends to`;
  }
  return undefined;
}

/** `pattern` is a host name, or `*.` and a name with the `*` standing for exactly one label. */
function hostMatches(pattern: string, hostname: string): boolean {
  if (!pattern.startsWith('*.')) return hostname === pattern;
  const suffix = pattern.slice(1);
  const label = hostname.slice(0, -suffix.length);
  return hostname.endsWith(suffix) && label !== '' && !label.includes('.');
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
