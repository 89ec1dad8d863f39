import fc from 'fast-check';
import { leaseUnits } from '@availability/service-core';
import { type FuzzOutcome, type FuzzResponse, isResponse, send } from './driver.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzWorld } from './world.js';

type Headers = Record<string, string | string[]>;

/**
 * Who a service's rate limit must charge a request to (docs/architecture.md "Rate limits count
 * principals"), and the check that it did. The principal is named here by a credential that
 * authenticates as it (its probe), or `address` for the client's address.
 */
export type Principal = { probe: Headers; name: string } | undefined;

/** Services whose principals come from the directory's credentials (AuthModule); the portal counts by address only. */
const CREDENTIAL_APPS = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher'];
/** A GET of each limited service that every caller may send and that changes nothing, to read a principal's count. */
const PROBE_PATHS: Record<string, string> = {
  'contact-directory': '/worker/contacts',
  'offers-api': '/offer/00000000-0000-4000-8000-000000000000',
  'notification-service': '/worker/web-push/key',
  'webhook-dispatcher': '/portal/webhooks/endpoint',
  portal: '/session',
};

/**
 * The headers as the service receives them from Node's client: names in any case, a later key
 * replacing an earlier one of the same name, an array sent as repeated lines; then the first of
 * repeated Authorization lines is kept and repeated X-Api-Key lines are joined, values trimmed.
 */
function received(headers: Headers, name: string): string | undefined {
  let lines: string[] | undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) lines = (Array.isArray(value) ? value : [value]).map((line) => line.trim());
  if (lines === undefined || lines.length === 0) return undefined;
  return name === 'authorization' ? lines[0] : lines.join(', ');
}

/** The token authentication takes (libs/auth presentedToken): the Bearer token, else X-Api-Key's. */
export function presentedToken(headers: Headers): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(received(headers, 'authorization') ?? '')?.[1];
  if (bearer) return bearer;
  const apiKey = received(headers, 'x-api-key');
  return apiKey !== undefined && apiKey.length > 0 ? apiKey.trim() : undefined;
}

/** Every credential of the world that stays live all run, by the principal it authenticates as on `app`. */
function livePrincipals(world: FuzzWorld, app: string): Map<string, string> {
  const named = new Map<string, string>();
  if (!CREDENTIAL_APPS.includes(app)) return named;
  for (const [tenant, who] of [
    [world.home, 'home'],
    [world.other, 'other'],
  ] as const) {
    named.set(tenant.apiKey, `${who} API key`);
    named.set(tenant.adminUser.token, `${who} admin`);
    named.set(tenant.memberUser.token, `${who} member`);
    tenant.workers.forEach((worker, i) => named.set(worker.token, `${who} worker ${i + 1}`));
  }
  if (app === 'contact-directory') named.set(world.directoryAdminToken, 'the directory operator');
  if (app === 'webhook-dispatcher') named.set(world.dispatcherAdminToken, 'the dispatcher operator');
  return named;
}

/**
 * Whom `request` must be charged to on its service, or undefined when that cannot be known: the
 * example integrator (not limited), or a token that another request may revoke meanwhile (the spare
 * sessions sign-out ends). A token nobody holds, revoked, or the operator token of another service is
 * the client's address.
 */
export function expectedPrincipal(world: FuzzWorld, request: FuzzRequest): Principal {
  if (!PROBE_PATHS[request.app]) return undefined;
  const token = presentedToken(request.headers);
  if (token !== undefined && world.spare.sessionTokens.includes(token)) return undefined;
  const name = token === undefined ? undefined : livePrincipals(world, request.app).get(token);
  return name === undefined ? { probe: {}, name: 'the client address' } : { probe: { authorization: `Bearer ${token}` }, name };
}

interface Count {
  remaining: number;
  reset: number;
  limit: number;
}

function countOf(outcome: FuzzOutcome): Count | undefined {
  if (!isResponse(outcome)) return undefined;
  const header = (name: string) => Number((outcome as FuzzResponse).headers[name]);
  const count = { remaining: header('x-ratelimit-remaining'), reset: header('x-ratelimit-reset'), limit: header('x-ratelimit-limit') };
  return Number.isFinite(count.remaining) && Number.isFinite(count.limit) ? count : undefined;
}

/**
 * Sends `request` between two reads of its expected principal's count and says what is wrong with
 * what it was charged to. The reads come from this service's one process, whose places in a
 * principal's window are consecutive, but for a jump of whole leases (other services take from the
 * same shared count): so the two reads must be two places apart, counting modulo the lease, when the
 * request was charged to the principal, and one when it was charged to anyone else. Undecided (no
 * violation) when the request was not counted (exempt, refused before the limit), a window ended, or
 * another request was sent meanwhile (`alone` false).
 */
export async function sendCharged(world: FuzzWorld, request: FuzzRequest, alone: () => boolean): Promise<{ outcome: FuzzOutcome; violations: string[] }> {
  const principal = expectedPrincipal(world, request);
  const url = world.urls[request.app];
  const probe = () => send(url, { app: request.app, operation: 'probe', method: 'GET', path: PROBE_PATHS[request.app], headers: principal?.probe ?? {} }, world.integratorSecret);
  const before = principal ? countOf(await probe()) : undefined;
  const outcome = await send(url, request, world.integratorSecret);
  if (!principal || !before || !countOf(outcome)) return { outcome, violations: [] };
  const after = countOf(await probe());
  if (!after || after.reset > before.reset || after.remaining > before.remaining || before.remaining < 3 || !alone()) return { outcome, violations: [] };
  const units = leaseUnits(before.limit);
  const used = before.remaining - after.remaining;
  const charged = units > 2 ? used % units : used;
  if (charged === 2) return { outcome, violations: [] };
  return { outcome, violations: [`charged to someone other than ${principal.name} (its count moved ${used}, ${2 - charged} short of this request and the next read; leases of ${units})`] };
}

const schemes = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR');
const gaps = fc.constantFrom(' ', '  ', '\t');
const junkToken = fc.oneof(
  fc.tuple(fc.constantFrom('apk_', 'wkt_', 'put_', ''), fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/)).map(([prefix, rest]) => prefix + rest),
  fc.constantFrom('x'.repeat(600), 'null', '%00', '\u00ff\u00fe'),
);

/** Tokens of the world that no request may end: every live one but the spare sessions, the operator tokens, and revoked ones. */
export function worldTokens(world: FuzzWorld): string[] {
  const live = [world.home, world.other].flatMap((tenant) => [tenant.apiKey, tenant.adminUser.token, tenant.memberUser.token, ...tenant.workers.map((worker) => worker.token)]);
  return [...live, world.directoryAdminToken, world.dispatcherAdminToken, world.revoked.apiKey, world.revoked.workerToken, world.revoked.userToken];
}

/**
 * Credential headers in combination: both headers, names re-cased, repeated, junk beside a valid
 * token, a valid token in the header authentication does not read first. `valid` are the tokens the
 * operation takes, `others` the rest it may be sent (worldTokens, or fewer where a request could
 * end a session), with made-up ones.
 */
export function credentialCombination(valid: string[], others: string[]): fc.Arbitrary<Headers> {
  const token = fc.oneof(
    ...(valid.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...valid) }] : []),
    ...(others.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...others) }] : []),
    { weight: 2, arbitrary: junkToken },
  );
  const authorization = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(schemes, gaps, token, fc.constantFrom('', ' ')).map(([scheme, gap, t, end]) => `${scheme}${gap}${t}${end}`) },
    { weight: 1, arbitrary: token },
    { weight: 1, arbitrary: junkToken.map((t) => `Basic ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer a b') },
  );
  const apiKey = fc.oneof({ weight: 3, arbitrary: token }, { weight: 1, arbitrary: token.map((t) => ` ${t} `) });
  const header = (names: string[], value: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant<Headers>({}) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...names), value).map(([name, v]): Headers => ({ [name]: v })) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), value, value).map(([name, a, b]): Headers => ({ [name]: [a, b] })) },
    );
  return fc
    .tuple(header(['authorization', 'Authorization', 'AUTHORIZATION'], authorization), header(['x-api-key', 'X-Api-Key', 'X-API-KEY'], apiKey), fc.boolean())
    .map(([a, k, keyFirst]) => (keyFirst ? { ...k, ...a } : { ...a, ...k }));
}
