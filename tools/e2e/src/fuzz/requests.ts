import fc from 'fast-check';
import {
  deepNesting,
  nastyText,
  encodeComponent,
  hostileKey,
  hostilePathSegment,
  hostileQueryValue,
  hostileString,
  hostileValue,
  invalidUtf8,
  malformedJson,
  oddContentType,
} from './hostile.js';
import { type JsonNode, JsonArray, JsonObject, jsonPreview, jsonText, toNode } from './json-text.js';
import type { DocumentedOperation, JsonSchema } from './openapi.js';
import type { AuthKind, OperationSpec } from './operations.js';
import { credentialCombination, worldTokens } from './charges.js';
import { crossSiteHeaders, forgedCookies, sameOriginHeaders, sessionCookie } from './portal.js';
import type { FuzzWorld } from './world.js';

/** One generated request, exactly as sent (the example integrator's signature is added at send time). */
export interface FuzzRequest {
  app: string;
  operation: string;
  method: string;
  /** Path and query as on the request line. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** The body for people: long strings and deep nesting summarised. */
  bodyPreview?: string;
  /** Example integrator: sign the request with the integrator's secret, another secret, or a stale timestamp. */
  sign?: 'valid' | 'wrong-secret' | 'stale';
  /** Its credential was generated hostile: check whom the rate limit charged it to (charges.ts). */
  checkCharge?: boolean;
}

interface Credential {
  headers: Record<string, string | string[]>;
  sign?: FuzzRequest['sign'];
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Credentials that are always wrong, whatever the endpoint. */
const garbageCredential: fc.Arbitrary<Credential> = fc.constantFrom<Credential>(
  { headers: {} },
  { headers: { authorization: '' } },
  { headers: { authorization: 'Bearer' } },
  { headers: { authorization: 'Bearer a b' } },
  { headers: { authorization: `Bearer ${'x'.repeat(600)}` } },
  { headers: { authorization: 'Basic dXNlcjpwYXNzd29yZA==' } },
  { headers: { authorization: 'Bearer \u00ff\u00fe\u00e9' } },
  { headers: { 'x-api-key': 'apk_not-a-key' } },
  { headers: { authorization: 'Bearer apk_%00' } },
);

interface Choices<T> {
  /** What gets past this part of the checks, so the request reaches the next. */
  valid: fc.Arbitrary<T>;
  /** Anything a hostile or careless client might send instead (and sometimes a valid one). */
  hostile: fc.Arbitrary<T>;
}

/** The tokens an operation's own credential is made of (none for the signature and the portal's cookies). */
function validTokens(auth: AuthKind, world: FuzzWorld): string[] {
  const { home } = world;
  const tokens: Partial<Record<AuthKind, string[]>> = {
    'directory-admin': [world.directoryAdminToken],
    'dispatcher-admin': [world.dispatcherAdminToken],
    'portal-admin': [home.adminUser.token],
    portal: [home.adminUser.token, home.memberUser.token],
    'api-key': [home.apiKey],
    worker: home.workers.map((worker) => worker.token),
    'sign-out': world.spare.sessionTokens,
  };
  return tokens[auth] ?? [];
}

/**
 * An operation's credentials, and beside its hostile ones, credential headers in combination
 * (charges.ts) over a valid credential's other headers (a portal cookie and origin), so the rate
 * limit's principal is checked whichever header a token comes in. Sign-out ends the session its
 * token belongs to: it is sent no token that other requests need.
 */
function credentialFor(auth: AuthKind, world: FuzzWorld): Choices<Credential> {
  const own = ownCredentialFor(auth, world);
  const others = auth === 'sign-out' ? [world.home.apiKey, world.directoryAdminToken, world.revoked.userToken, world.revoked.workerToken] : worldTokens(world);
  const combined = fc.tuple(own.valid, credentialCombination(validTokens(auth, world), others)).map(([credential, headers]): Credential => {
    const rest = Object.entries(credential.headers).filter(([name]) => !/^(authorization|x-api-key)$/i.test(name));
    return { ...credential, headers: { ...Object.fromEntries(rest), ...headers } };
  });
  return { valid: own.valid, hostile: fc.oneof({ weight: 3, arbitrary: own.hostile }, { weight: 2, arbitrary: combined }) };
}

function ownCredentialFor(auth: AuthKind, world: FuzzWorld): Choices<Credential> {
  const { home, other, revoked } = world;
  const weighted = (valid: Credential[], wrong: Credential[]): Choices<Credential> => ({
    valid: fc.constantFrom(...valid),
    hostile: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...wrong) }, { weight: 2, arbitrary: garbageCredential }),
  });
  switch (auth) {
    case 'directory-admin':
      return weighted([{ headers: bearer(world.directoryAdminToken) }], [{ headers: bearer(world.dispatcherAdminToken) }, { headers: bearer(home.apiKey) }]);
    case 'dispatcher-admin':
      return weighted([{ headers: bearer(world.dispatcherAdminToken) }], [{ headers: bearer(world.directoryAdminToken) }, { headers: bearer(home.apiKey) }]);
    case 'portal-admin':
      return weighted(
        [{ headers: bearer(home.adminUser.token) }],
        [{ headers: bearer(home.memberUser.token) }, { headers: bearer(other.adminUser.token) }, { headers: bearer(revoked.userToken) }, { headers: bearer(home.workers[0].token) }],
      );
    case 'portal':
      return weighted(
        [{ headers: bearer(home.adminUser.token) }, { headers: bearer(home.memberUser.token) }],
        [{ headers: bearer(other.memberUser.token) }, { headers: bearer(revoked.userToken) }, { headers: bearer(home.apiKey) }],
      );
    case 'api-key':
      return weighted(
        [{ headers: bearer(home.apiKey) }, { headers: { 'x-api-key': home.apiKey } }, { headers: { authorization: `bearer   ${home.apiKey}  ` } }],
        [{ headers: bearer(other.apiKey) }, { headers: bearer(revoked.apiKey) }, { headers: bearer(home.workers[0].token) }, { headers: bearer(home.adminUser.token) }],
      );
    case 'worker':
      return weighted(
        home.workers.map((worker) => ({ headers: bearer(worker.token) })),
        [{ headers: bearer(other.workers[0].token) }, { headers: bearer(revoked.workerToken) }, { headers: bearer(home.apiKey) }],
      );
    case 'signature':
      return {
        valid: fc.constant<Credential>({ headers: {}, sign: 'valid' }),
        hostile: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom<Credential>({ headers: {}, sign: 'wrong-secret' }, { headers: {}, sign: 'stale' }) },
          { weight: 2, arbitrary: garbageCredential },
        ),
      };
    case 'sign-out':
      return weighted(
        world.spare.sessionTokens.map((token) => ({ headers: bearer(token) })),
        [{ headers: bearer(revoked.userToken) }, { headers: bearer(revoked.workerToken) }, { headers: bearer(home.apiKey) }, { headers: bearer(world.directoryAdminToken) }],
      );
    case 'portal-session':
    case 'portal-page':
    case 'portal-sign-out':
      return portalCredential(auth, world);
    case 'none':
      return { valid: fc.constant<Credential>({ headers: {} }), hostile: garbageCredential };
  }
}

/**
 * The portal's credential is a session cookie, and a change needs the portal's own `Origin` (or
 * `Sec-Fetch-Site: same-origin`). Valid: a seeded session (spare ones for sign-out) from the portal's
 * origin; hostile: a live session from another origin or none, forged, tampered or signed-out cookies.
 */
function portalCredential(auth: 'portal-session' | 'portal-page' | 'portal-sign-out', world: FuzzWorld): Choices<Credential> {
  const { portal } = world;
  const live = auth === 'portal-sign-out' ? portal.spare : auth === 'portal-session' ? [portal.homeAdmin, portal.homeMember, portal.worker] : [];
  const cookies = (values: Array<string | string[]>) => values.map((value): Record<string, string | string[]> => (value === '' ? {} : { cookie: value }));
  const valid = fc.tuple(fc.constantFrom(...cookies(live.length > 0 ? live.map(sessionCookie) : [''])), fc.constantFrom(...sameOriginHeaders(portal)));
  // Sign-out from another origin must refuse the seeded sessions too (were it to sign one out, the suite would see the tables change).
  const crossSite = fc.tuple(fc.constantFrom(...cookies(['', ...[...live, portal.homeAdmin, portal.worker].map(sessionCookie)])), fc.constantFrom(...crossSiteHeaders(portal)));
  // A sign-out from the portal's origin with a forged cookie beside a live one would end that session, which other requests need.
  const forgeries = forgedCookies(portal).filter((value) => auth !== 'portal-sign-out' || !String(value).includes(portal.homeAdmin));
  const forged = fc.tuple(fc.constantFrom(...cookies(forgeries)), fc.constantFrom(...sameOriginHeaders(portal)));
  const merge = ([cookie, origin]: [Record<string, string | string[]>, Record<string, string | string[]>]): Credential => ({ headers: { ...cookie, ...origin } });
  return {
    valid: valid.map(merge),
    hostile: fc.oneof(
      { weight: 3, arbitrary: crossSite.map(merge) },
      { weight: auth === 'portal-page' ? 1 : 3, arbitrary: forged.map(merge) },
      { weight: 1, arbitrary: garbageCredential.map((garbage) => ({ headers: { ...garbage.headers, origin: portal.origin } })) },
    ),
  };
}

/** Ids that belong to the other organisation (or to nobody): valid-looking, never the caller's. */
function foreignIds(world: FuzzWorld): string[] {
  return [world.other.organisationId, ...world.other.offerIds, ...world.other.workers.map((worker) => worker.id), world.other.adminUser.id];
}

function pathArbitrary(operation: DocumentedOperation, spec: OperationSpec, world: FuzzWorld): Choices<string> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const valid = (name: string) => fc.constantFrom(...(spec.params?.[name]?.(world) ?? ['missing-pool']));
  const hostile = (name: string) =>
    fc.oneof(
      { weight: 2, arbitrary: valid(name) },
      { weight: 1, arbitrary: fc.constantFrom(...foreignIds(world)) },
      { weight: 4, arbitrary: hostilePathSegment },
    );
  const suffix = fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/%2e%2e', '/..', '%2F', '/x') });
  const build = (segments: fc.Arbitrary<string[]>, tail: fc.Arbitrary<string>) =>
    fc.tuple(segments, tail).map(([values, end]) => {
      let path = operation.path;
      names.forEach((name, index) => (path = path.replace(`{${name}}`, values[index])));
      return `${path}${end}`;
    });
  return { valid: build(fc.tuple(...names.map(valid)), fc.constant('')), hostile: build(fc.tuple(...names.map(hostile)), suffix) };
}

function queryArbitrary(operation: DocumentedOperation, spec: OperationSpec, world: FuzzWorld): Choices<string> {
  const documented = operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  const validOne = (name: string): fc.Arbitrary<string[]> =>
    fc.option(fc.constantFrom(...(spec.query?.[name]?.(world) ?? [''])).map((value) => [`${name}=${encodeComponent(value)}`]), { nil: [] });
  const one = (name: string): fc.Arbitrary<string[]> => {
    const valid = fc.constantFrom(...(spec.query?.[name]?.(world) ?? ['']));
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<string[]>([]) },
      { weight: 3, arbitrary: valid.map((value) => [`${name}=${encodeComponent(value)}`]) },
      { weight: 3, arbitrary: hostileQueryValue.map((value) => [`${name}=${value}`]) },
      { weight: 1, arbitrary: fc.tuple(valid, hostileQueryValue).map(([a, b]) => [`${name}=${a}`, `${name}=${b}`]) },
      { weight: 1, arbitrary: valid.map((value) => [`${name}[]=${value}`]) },
      { weight: 1, arbitrary: valid.map((value) => [`${name.toUpperCase()}=${value}`]) },
    );
  };
  const extra = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ['api-version=1.0'],
        ['api-version=2.0'],
        ['api-version='],
        ['API-VERSION=2.0'],
        ['Api-Version=2.0'],
        ['api-version[]=1.0'],
        ['api-version[]='],
        ['api-version=1.0', 'api-version=2.0'],
        ['api-version=1.0', 'api-version=1.0'],
        ['api-version=%00'],
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(['a[]='], ['__proto__[status]=200'], ['constructor[prototype][x]=1'], ['%00=%00'], ['&&&'], ['='], ['a=%ED%A0%80'], ['a=%'], ['a[b][c][d][e][f]=1']),
    },
    { weight: 1, arbitrary: fc.constantFrom(2_000, 9_000, 20_000).map((length) => [`q=${'x'.repeat(length)}`]) },
  );
  const build = (parts: fc.Arbitrary<string[][]>, more: fc.Arbitrary<readonly string[]>) =>
    fc.tuple(parts, more).map(([own, extras]) => {
      const all = [...own.flat(), ...extras];
      return all.length === 0 ? '' : `?${all.join('&')}`;
    });
  return { valid: build(fc.tuple(...documented.map(validOne)), fc.constant([])), hostile: build(fc.tuple(...documented.map(one)), extra) };
}

/** Where a one-field mutation can strike: a member of an object or an element of an array, with its schema. */
interface Slot {
  parent: JsonObject | JsonArray;
  key: string | number;
  schema?: JsonSchema;
}

function slotsOf(node: JsonNode, schema: JsonSchema | undefined, into: Slot[] = []): Slot[] {
  if (node instanceof JsonObject) {
    for (const [key, value] of node.members) {
      const child = schema?.properties?.[key];
      into.push({ parent: node, key, schema: child });
      slotsOf(value, child, into);
    }
  } else if (node instanceof JsonArray && node.items.length > 0) {
    into.push({ parent: node, key: 0, schema: schema?.items });
    slotsOf(node.items[0], schema?.items, into);
  }
  return into;
}

type Mutation = 'replace' | 'typed' | 'remove' | 'recase-duplicate' | 'recase' | 'proto-sibling' | 'unknown-sibling' | 'over-bound' | 'at-bound';
const MUTATIONS: Mutation[] = ['typed', 'replace', 'remove', 'recase-duplicate', 'recase', 'proto-sibling', 'unknown-sibling', 'over-bound', 'at-bound'];

interface MutationPlan {
  slot: number;
  kind: Mutation;
  value: JsonNode;
  text: string;
  key: string;
}

const mutationPlan: fc.Arbitrary<MutationPlan> = fc.record({
  slot: fc.nat(40),
  kind: fc.oneof({ weight: 3, arbitrary: fc.constant<Mutation>('typed') }, { weight: 9, arbitrary: fc.constantFrom(...MUTATIONS) }),
  value: hostileValue,
  text: fc.oneof({ weight: 2, arbitrary: nastyText }, { weight: 1, arbitrary: hostileString() }),
  key: hostileKey,
});

function recased(key: string): string {
  const upperFirst = key.charAt(0).toUpperCase() + key.slice(1);
  return upperFirst !== key ? upperFirst : key.toUpperCase() !== key ? key.toUpperCase() : key.toLowerCase();
}

function valueAt(slot: Slot): JsonNode {
  return slot.parent instanceof JsonObject ? (slot.parent.members.find(([key]) => key === slot.key)?.[1] ?? null) : slot.parent.items[slot.key as number];
}

function setAt(slot: Slot, value: JsonNode): void {
  if (slot.parent instanceof JsonArray) slot.parent.items[slot.key as number] = value;
  else for (const member of slot.parent.members) if (member[0] === slot.key) member[1] = value;
}

function cloneNode(node: JsonNode): JsonNode {
  if (node instanceof JsonObject) return new JsonObject(node.members.map(([key, value]) => [key, cloneNode(value)]));
  if (node instanceof JsonArray) return new JsonArray(node.items.map(cloneNode));
  return node; // primitives and raw text never change
}

/** Applies one mutation to a copy of a body. */
function mutate(body: JsonNode, schema: JsonSchema | undefined, plan: MutationPlan): JsonNode {
  const root = cloneNode(body);
  const slots = slotsOf(root, schema);
  if (slots.length === 0) return plan.value;
  const slot = slots[plan.slot % slots.length];
  const current = valueAt(slot);
  const bound = current instanceof JsonArray ? slot.schema?.maxItems : slot.schema?.maxLength;
  // Arrays without a documented bound have nothing to go over.
  const kind = bound === undefined && current instanceof JsonArray && (plan.kind === 'over-bound' || plan.kind === 'at-bound') ? 'replace' : plan.kind;
  switch (kind) {
    case 'replace':
      setAt(slot, plan.value);
      break;
    case 'typed':
      // A string where a string belongs, so the handler's own checks see it rather than a type error.
      setAt(slot, typeof current === 'string' ? plan.text : plan.value);
      break;
    case 'remove':
      if (slot.parent instanceof JsonObject) slot.parent.members.splice(slot.parent.members.findIndex(([key]) => key === slot.key), 1);
      else slot.parent.items.splice(slot.key as number, 1);
      break;
    case 'recase-duplicate':
    case 'recase':
      if (slot.parent instanceof JsonObject) {
        const index = slot.parent.members.findIndex(([key]) => key === slot.key);
        const renamed: [string, JsonNode] = [recased(String(slot.key)), kind === 'recase' ? current : plan.value];
        if (kind === 'recase') slot.parent.members[index] = renamed;
        else slot.parent.members.push(renamed);
      } else setAt(slot, plan.value);
      break;
    case 'proto-sibling':
    case 'unknown-sibling': {
      const container = slot.parent instanceof JsonObject ? slot.parent : root instanceof JsonObject ? root : undefined;
      const key = kind === 'proto-sibling' ? (plan.slot % 2 === 0 ? '__proto__' : 'constructor') : plan.key;
      if (container) container.members.push([key, plan.value]);
      else setAt(slot, plan.value);
      break;
    }
    case 'over-bound':
    case 'at-bound': {
      const length = bound === undefined ? 20_000 : kind === 'over-bound' ? bound + 1 : bound;
      if (current instanceof JsonArray) {
        // Arrays at a bound in the thousands would create thousands of rows; over it they are refused.
        const size = kind === 'at-bound' && length > 1_000 ? 1_000 : length;
        // Copies of a small element (an earlier mutation may have made it huge): the body stays a few MB at most.
        const first = current.items[0] ?? 'x';
        const element = jsonText(first).length > 200 ? 'x' : first;
        const distinct = typeof element === 'string' ? (i: number) => `${element}`.slice(0, 30) + String(i) : () => element;
        setAt(slot, new JsonArray(Array.from({ length: size }, (_, i) => (i === 0 ? element : distinct(i)))));
      } else {
        setAt(slot, (plan.text || 'a').slice(0, 1).repeat(length));
      }
      break;
    }
  }
  return root;
}

interface BodyChoice {
  bytes?: Buffer;
  preview?: string;
  contentType?: string;
  /** Extra headers that go with this body (e.g. a Content-Length that lies). */
  headers?: Record<string, string | string[]>;
}

const json = (node: JsonNode, contentType = 'application/json'): BodyChoice => ({ bytes: Buffer.from(jsonText(node), 'utf8'), preview: jsonPreview(node), contentType });

function bodyArbitrary(operation: DocumentedOperation, spec: OperationSpec, world: FuzzWorld): Choices<BodyChoice> {
  const schema = operation.bodySchema ?? spec.body?.schema;
  const hostileBodies: Array<{ weight: number; arbitrary: fc.Arbitrary<BodyChoice> }> = [
    { weight: 1, arbitrary: hostileValue.map((node) => json(node)) },
    { weight: 1, arbitrary: malformedJson.map((text) => ({ bytes: Buffer.from(text, 'utf8'), preview: JSON.stringify(text), contentType: 'application/json' })) },
    { weight: 1, arbitrary: deepNesting.map((node) => json(node)) },
    { weight: 1, arbitrary: invalidUtf8.map((bytes) => ({ bytes, preview: `<bytes ${bytes.toString('hex')}>`, contentType: 'application/json' })) },
  ];
  if (!spec.body) return { valid: fc.constant<BodyChoice>({}), hostile: fc.oneof(...hostileBodies) };
  const valid = spec.body.valid;
  const n = fc.nat(1_000_000);
  return {
    valid: n.map((i) => json(toNode(valid(world, i)))),
    hostile: fc.oneof(
      // Mostly one field changed in a body the handler accepts, so the handler's own logic sees it.
      { weight: 12, arbitrary: fc.tuple(n, mutationPlan).map(([i, plan]) => json(mutate(toNode(valid(world, i)), schema, plan))) },
      {
        weight: 3,
        arbitrary: fc.tuple(n, fc.array(mutationPlan, { minLength: 2, maxLength: 4 })).map(([i, plans]) => {
          let node: JsonNode = toNode(valid(world, i));
          for (const plan of plans) node = mutate(node, schema, plan);
          return json(node);
        }),
      },
      ...hostileBodies,
      { weight: 1, arbitrary: fc.tuple(n, oddContentType).map(([i, type]) => ({ ...json(toNode(valid(world, i))), contentType: type })) },
      { weight: 1, arbitrary: fc.constantFrom<BodyChoice>({}, { contentType: 'application/json' }, { bytes: Buffer.alloc(0), contentType: 'application/json' }) },
      {
        weight: 1,
        arbitrary: fc.tuple(n, fc.constantFrom(1_100_000, 2_200_000, 3_000_000)).map(([i, size]) => {
          const node = toNode(valid(world, i));
          const padded = node instanceof JsonObject ? new JsonObject([...node.members, ['padding', 'p'.repeat(size)]]) : new JsonArray([node, 'p'.repeat(size)]);
          return json(padded);
        }),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(n, fc.constantFrom<string | string[]>('abc', '-1', '1', ['1', '2'], '0x10', ' 12')).map(([i, length]) => ({
          ...json(toNode(valid(world, i))),
          headers: { 'content-length': length },
        })),
      },
    ),
  };
}

const extraHeaders: fc.Arbitrary<Record<string, string | string[]>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<Record<string, string | string[]>>(
      { accept: 'application/xml' },
      { accept: '*/*;q=0.1, text/html' },
      { 'x-request-id': 'x'.repeat(5_000) },
      { 'x-request-id': '\u00ff\u00fe' },
      { 'x-request-id': ['a', 'b'] },
      { traceparent: `00-${'a'.repeat(5_000)}` },
      { traceparent: ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'garbage'], tracestate: 'k=v,'.repeat(3_000) },
      { 'x-forwarded-for': '127.0.0.1, ::1, garbage' },
      { 'x-http-method-override': 'DELETE' },
      { 'transfer-encoding': 'chunked' },
      { 'accept-encoding': 'gzip;q=1, br;q=0, identity;q=0' },
      { 'content-encoding': 'gzip' },
      { 'api-version': '2.0' },
      { authorization: 'Bearer a', Authorization: 'Bearer b' },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(9_000, 17_000, 70_000).map((length) => ({ 'x-padding': 'x'.repeat(length) })) },
);

function headerParamsArbitrary(operation: DocumentedOperation, spec: OperationSpec, world: FuzzWorld): Choices<Array<[string, string] | undefined>> {
  const documented = operation.parameters.filter((parameter) => parameter.in === 'header');
  const valid = (name: string) => fc.option(fc.nat(1_000).map((n): [string, string] => [name, spec.headers?.[name]?.(world, n) ?? 'x']), { nil: undefined });
  const hostile = (name: string) =>
    fc.oneof(
      valid(name),
      fc.constantFrom('', ' ', 'a'.repeat(255), 'a'.repeat(256), 'ab cd', '\u00ff\u00fe', 'x'.repeat(9_000)).map((value): [string, string] => [name, value]),
    );
  return { valid: fc.tuple(...documented.map((p) => valid(p.name))), hostile: fc.tuple(...documented.map((p) => hostile(p.name))) };
}

/** Which part of the request is hostile; the others stay valid so the request gets that far. */
type Focus = 'credential' | 'path' | 'query' | 'headers' | 'body' | 'everything';

/**
 * Every request the fuzzer may send to one operation. Most requests are hostile in one part only
 * (mostly the body, when there is one) and valid elsewhere, so they pass authentication and reach
 * validation and the handler; a few are hostile everywhere at once.
 */
export function requestArbitrary(operation: DocumentedOperation, spec: OperationSpec, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const parts = {
    credential: credentialFor(spec.auth, world),
    path: pathArbitrary(operation, spec, world),
    query: queryArbitrary(operation, spec, world),
    body: bodyArbitrary(operation, spec, world),
    headerParams: headerParamsArbitrary(operation, spec, world),
  };
  const hasParams = operation.path.includes('{');
  const focus = fc.oneof(
    { weight: spec.body ? 10 : 2, arbitrary: fc.constant<Focus>('body') },
    { weight: hasParams ? 3 : 1, arbitrary: fc.constant<Focus>('path') },
    { weight: 2, arbitrary: fc.constant<Focus>('query') },
    { weight: 2, arbitrary: fc.constant<Focus>('credential') },
    { weight: 1, arbitrary: fc.constant<Focus>('headers') },
    { weight: 1, arbitrary: fc.constant<Focus>('everything') },
  );
  const pick = <T>(part: Choices<T>, hostile: boolean) => (hostile ? part.hostile : part.valid);
  return focus.chain((on) => {
    const everything = on === 'everything';
    return fc.record({
      on: fc.constant(on),
      credential: pick(parts.credential, everything || on === 'credential'),
      path: pick(parts.path, everything || on === 'path'),
      query: pick(parts.query, everything || on === 'query'),
      body: pick(parts.body, everything || on === 'body'),
      headerParams: pick(parts.headerParams, everything || on === 'headers'),
      extra: everything || on === 'headers' ? extraHeaders : fc.constant({}),
    });
  }).map(({ on, credential, path, query, body, headerParams: params, extra }) => {
    const headers: Record<string, string | string[]> = { ...credential.headers };
    for (const param of params) if (param) headers[param[0]] = param[1];
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    Object.assign(headers, body.headers, extra);
    return {
      app: operation.app,
      operation: operation.key,
      method: operation.method,
      path: `${path}${query}`,
      headers,
      body: body.bytes,
      bodyPreview: body.preview,
      sign: credential.sign,
      checkCharge: on === 'credential' || on === 'everything',
    };
  });
}
