import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type FuzzOutcome, isResponse } from './driver.js';
import { presentedToken } from './charges.js';
import { inSessionArea, isSafeMethod, isSameOrigin, sessionKinds } from './portal.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzWorld } from './world.js';

const PROBLEM_TYPE_PREFIX = 'https://availability.example/problems/';

/** Slug → documented status (`undefined` for "other"), read from the table in docs/errors.md. */
export function documentedProblemTypes(root = process.cwd()): Map<string, number | undefined> {
  const text = readFileSync(resolve(root, 'docs/errors.md'), 'utf8');
  const types = new Map<string, number | undefined>();
  for (const match of text.matchAll(/^\| `([a-z-]+)` \| (\d{3}|other) \|/gm)) types.set(match[1], match[2] === 'other' ? undefined : Number(match[2]));
  return types;
}

/**
 * What is wrong with an answer to a client's request, whatever the request was: no answer, a 5xx, or
 * a 4xx that is not an RFC 9457 problem as docs/errors.md describes it.
 */
export function answerViolations(outcome: FuzzOutcome, types: Map<string, number | undefined>, method = 'GET'): string[] {
  if (!isResponse(outcome)) return [`no HTTP answer (${outcome.error})`];
  const { status } = outcome;
  if (status >= 500) return [`HTTP ${status}`];
  if (status < 400) return [];
  const violations: string[] = [];
  const contentType = String(outcome.headers['content-type'] ?? '');
  if (!/^application\/problem\+json\b/i.test(contentType)) violations.push(`HTTP ${status} with content-type "${contentType}", not application/problem+json`);
  // The answer to a HEAD has the headers of the GET's and no body.
  if (method.toUpperCase() === 'HEAD') return violations;
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(outcome.text) as Record<string, unknown>;
  } catch {
    return [...violations, `HTTP ${status} body is not JSON`];
  }
  if (problem === null || typeof problem !== 'object' || Array.isArray(problem)) return [...violations, `HTTP ${status} body is not a JSON object`];
  if (problem.status !== status) violations.push(`HTTP ${status} problem has status ${JSON.stringify(problem.status)}`);
  if (typeof problem.title !== 'string' || problem.title === '') violations.push(`HTTP ${status} problem has no title`);
  const type = typeof problem.type === 'string' ? problem.type : '';
  const slug = type.startsWith(PROBLEM_TYPE_PREFIX) ? type.slice(PROBLEM_TYPE_PREFIX.length) : undefined;
  if (slug === undefined || !types.has(slug)) violations.push(`HTTP ${status} problem type ${JSON.stringify(problem.type)} is not in docs/errors.md`);
  else if (types.get(slug) !== undefined && types.get(slug) !== status) violations.push(`problem type ${slug} is documented as ${types.get(slug)}, answered ${status}`);
  if (slug === 'validation-failed') {
    const errors = problem.errors as Record<string, unknown> | undefined;
    const fields = errors && typeof errors === 'object' && !Array.isArray(errors) ? Object.entries(errors) : [];
    const named = fields.filter(([field, messages]) => field !== '' && Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'));
    if (named.length === 0 || named.length !== fields.length) violations.push('validation problem without an errors object naming each field with its messages');
  }
  return violations;
}

/**
 * A credential of the other organisation (its API key, workers or portal users) must never be
 * answered with a 2xx about one of the home organisation's offers or webhook deliveries: those of
 * another organisation are a 404, as if they did not exist, and a filter naming one finds nothing.
 */
export function tenantViolations(world: FuzzWorld, request: FuzzRequest, outcome: FuzzOutcome): string[] {
  if (!isResponse(outcome) || outcome.status >= 300) return [];
  const { other, home } = world;
  const foreign = [other.apiKey, other.adminUser.token, other.memberUser.token, ...other.workers.map((worker) => worker.token), world.portal.otherAdmin];
  // The portal acts for its session cookie only: it drops any token the page sends. Elsewhere the
  // request is of whoever authentication settles on (the Bearer token, else X-Api-Key), whatever else it carries.
  const foreignCredential =
    request.app === 'portal'
      ? foreign.some((token) => String(request.headers.cookie ?? '').includes(token))
      : foreign.includes(presentedToken(request.headers) ?? '');
  if (!foreignCredential) return [];
  // An offer named in the path is a resource of its own; named in the query it is a filter, which
  // may answer 2xx as long as it finds nothing of the home organisation's.
  const resource = request.path.split('?')[0];
  const offer = home.offerIds.find((id) => resource.includes(id) || outcome.text.includes(id));
  if (offer) return [`HTTP ${outcome.status} to another organisation's credential for the home organisation's offer ${offer}`];
  // The seeded deliveries are all the home organisation's (the other has no webhook endpoint); the portal forwards /api/webhooks/… to them.
  const delivery = /^(?:\/api\/webhooks)?\/portal\/webhooks\/deliveries\/([^/?#]+)/.exec(request.path)?.[1];
  return delivery && world.deliveryIds.includes(delivery) ? [`HTTP ${outcome.status} to another organisation's credential for the home organisation's delivery ${delivery}`] : [];
}

/** The `api-version` values a request's query carries, however spelt (`API-VERSION`, `api-version[]`). */
function apiVersions(path: string): { values: string[]; bracketed: boolean } {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  const values: string[] = [];
  let bracketed = false;
  for (const pair of query.split('&')) {
    const [rawName, ...rest] = pair.split('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName).toLowerCase();
      value = decodeURIComponent(rest.join('='));
    } catch {
      continue;
    }
    if (name.replace(/\[\]$/, '') !== 'api-version') continue;
    bracketed ||= name.endsWith('[]');
    values.push(value);
  }
  return { values, bracketed };
}

/**
 * DESIGN 3: every call accepts `api-version`; absent means 1.0, anything else is a 400. So a request
 * naming another version, in any spelling, is never accepted.
 */
export function apiVersionViolations(request: FuzzRequest, outcome: FuzzOutcome): string[] {
  if (!isResponse(outcome) || outcome.status >= 300) return [];
  const { values, bracketed } = apiVersions(request.path);
  const unsupported = bracketed || values.some((value) => value !== '1.0');
  return unsupported ? [`HTTP ${outcome.status} to api-version ${JSON.stringify(bracketed ? values : values.find((value) => value !== '1.0'))}, which is not supported`] : [];
}

/**
 * The portal acts for the session its cookie carries, so: a request that changes something is never
 * accepted unless it comes from the portal's own origin (CSRF), and through `/api/<service>/…` a
 * session reaches only its own area (portal users `/portal/…`, workers `/worker/…`) by a plain path,
 * and nothing without a live session; nor does `GET /session` name anyone without one.
 */
export function portalViolations(world: FuzzWorld, request: FuzzRequest, outcome: FuzzOutcome): string[] {
  if (request.app !== 'portal' || !isResponse(outcome) || outcome.status < 200 || outcome.status >= 300) return [];
  const violations: string[] = [];
  if (!isSafeMethod(request.method) && !isSameOrigin(world.portal, request.headers)) {
    violations.push(`HTTP ${outcome.status} to a ${request.method} that does not come from the portal's origin`);
  }
  const kinds = sessionKinds(world.portal, request.headers);
  // Who is signed in: nobody, for a cookie signed out, forged or absent (a signed-out one once said otherwise).
  if (/^\/session(\?|$)/.test(request.path) && ['GET', 'HEAD'].includes(request.method.toUpperCase()) && kinds.size === 0) {
    violations.push(`HTTP ${outcome.status} to ${request.method} /session with no live session`);
  }
  if (!inSessionArea(request.path, kinds)) {
    const who = kinds.size === 0 ? 'no live session' : `a ${[...kinds].join(' and ')} session`;
    violations.push(`HTTP ${outcome.status} through the portal to ${request.path.split('?')[0].slice(0, 200)} with ${who}`);
  }
  return violations;
}
