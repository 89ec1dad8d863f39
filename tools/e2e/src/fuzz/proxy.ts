import fc from 'fast-check';
import { hostileQueryValue, invalidUtf8, malformedJson } from './hostile.js';
import type { DocumentedOperation } from './openapi.js';
import type { OperationSpec } from './operations.js';
import { crossSiteHeaders, forgedCookies, sameOriginHeaders, sessionCookie } from './portal.js';
import { type FuzzRequest, requestArbitrary } from './requests.js';
import { type FuzzWorld, PORTAL_UPSTREAMS } from './world.js';

type Headers = Record<string, string | string[]>;

/** An operation of a service behind the portal, with the name the portal forwards it under. */
export interface ProxiedOperation {
  service: string;
  operation: DocumentedOperation;
  spec: OperationSpec;
}

interface Session {
  headers: Headers;
}

/** Paths a page should never reach through the portal, or that try to get out of the area. */
function hostilePaths(world: FuzzWorld): fc.Arbitrary<string> {
  const offer = world.home.offerIds[0];
  const delivery = world.deliveryIds[0];
  const fixed = fc.constantFrom(
    '/admin/deliveries',
    '/admin/organisations',
    '/admin/endpoints/' + world.home.organisationId,
    '/metrics',
    '/health/live',
    '/health/ready',
    '/openapi.json',
    '/sign-in/session',
    '/sign-in/links',
    '/offer/' + offer,
    '/portal',
    '/portal/',
    '/worker',
    '/worker/',
    '/',
    '',
    '/portal/../admin/deliveries',
    '/portal/%2e%2e/admin/deliveries',
    '/portal/%2E%2E/%2E%2E/admin/deliveries',
    '/portal/webhooks/..%2f..%2fadmin%2fdeliveries',
    '/portal%2F..%2Fadmin%2Fdeliveries',
    '/portal/.%2e/admin/deliveries',
    '/portal/./offers',
    '/portal//offers',
    '//portal/offers',
    '/portal\\..\\admin\\deliveries',
    '/portal/offers/..;/..;/admin',
    '/portal;/offers',
    '/portal/offers#/../../admin',
    '/portal/offers%00',
    '/portal/%00/../admin',
    '/PORTAL/offers',
    '/Worker/offers',
    `/worker/offers/${offer}/../../../admin/deliveries`,
    `/portal/webhooks/deliveries/${delivery}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/admin/deliveries`,
    '/portal/offers/%252e%252e/%252e%252e/admin',
    '/portal/company-profile%3F',
    '/portal/company-profile%23x',
    '/portal/%E2%80%AE',
    '/portal/%C0%AE%C0%AE/admin',
    '/portal/offers?x=/../../admin',
    '/worker/../portal/offers',
    '/worker/%2e%2e/portal/company-profile',
    '/%2e%2e/webhooks/admin/deliveries',
    '/../directory/admin/organisations',
  );
  const long = fc.constantFrom(300, 2_000, 8_000, 20_000).chain((length) =>
    fc.constantFrom(`/portal/${'a'.repeat(length)}`, `/worker/offers/${'x'.repeat(length)}`, `/portal/${'a/'.repeat(length / 2)}`, `/portal/${'%2e%2e/'.repeat(length / 6)}admin`),
  );
  return fc.oneof({ weight: 6, arbitrary: fixed }, { weight: 1, arbitrary: long });
}

/** `<name>` of `/api/<name>/…`: the services, and names that are not one. */
const serviceNames = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(PORTAL_UPSTREAMS)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('Directory', 'OFFERS', 'directory%2F', 'offers%2F..', '..', '%2e%2e', '', 'admin', 'contact-directory', 'webhooks.', 'offers;', '__proto__', 'constructor', 'hasOwnProperty'),
  },
);

const anyMethod = fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND', 'SEARCH');

const hostileQuery = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: hostileQueryValue.map((value) => `?q=${value}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '?api-version=2.0',
      '?api-version[]=1.0',
      '?__proto__[x]=1',
      '?url=http://127.0.0.1/admin',
      '?a=%',
      '?%00=%00',
      '?limit=1&limit=2',
      `?q=${'x'.repeat(9_000)}`,
      '?../../admin',
      '?#',
    ),
  },
);

function hostileBody(): fc.Arbitrary<{ body?: Buffer; headers: Headers }> {
  const json = (text: string, type = 'application/json') => ({ body: Buffer.from(text, 'utf8'), headers: { 'content-type': type } });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant({ headers: {} }) },
    { weight: 2, arbitrary: malformedJson.map((text) => json(text)) },
    { weight: 1, arbitrary: invalidUtf8.map((body) => ({ body, headers: { 'content-type': 'application/json' } })) },
    { weight: 1, arbitrary: fc.constantFrom('{}', '[]', '{"__proto__":{"admin":true}}', 'null').map((text) => json(text)) },
    { weight: 1, arbitrary: fc.constantFrom('a=1&b=2', '<x/>', '--b\r\n\r\n--b--').map((text) => json(text, 'application/x-www-form-urlencoded')) },
    { weight: 1, arbitrary: fc.constantFrom(300_000, 1_100_000).map((size) => json(`{"padding":"${'p'.repeat(size)}"}`)) },
    { weight: 1, arbitrary: fc.constantFrom('-1', 'abc', '3').map((length) => ({ ...json('{"a":1}'), headers: { 'content-type': 'application/json', 'content-length': length } })) },
  );
}

/**
 * Requests to `/api/<service>/…`, which no OpenAPI document lists. Most are a documented operation
 * of a service behind the portal, generated as the direct fuzzing generates it (hostile in one part)
 * and sent through the portal with a session cookie in place of the token: mostly the session of the
 * operation's area, sometimes the other kind, the other organisation's, a forged one or none. The
 * rest are paths that try to leave the area (traversal, escapes, operator APIs, metrics, very long
 * paths), with any method, query and body.
 */
export function proxyRequestArbitrary(world: FuzzWorld, proxied: ProxiedOperation[]): fc.Arbitrary<FuzzRequest> {
  const portal = world.portal;
  const cookieOf = (value: string | string[]): Headers => ({ cookie: value });
  const live = (value: string) => fc.constantFrom(...sameOriginHeaders(portal)).map((origin): Session => ({ headers: { ...cookieOf(sessionCookie(value)), ...origin } }));
  const portalUser = fc.oneof(live(portal.homeAdmin), live(portal.homeMember));
  const worker = live(portal.worker);
  const hostileSession: fc.Arbitrary<Session> = fc.oneof(
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(portal.homeAdmin, portal.worker), fc.constantFrom(...crossSiteHeaders(portal))).map(([value, origin]) => ({ headers: { ...cookieOf(sessionCookie(value)), ...origin } })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...forgedCookies(portal)), fc.constantFrom(...sameOriginHeaders(portal))).map(([value, origin]) => ({ headers: { ...cookieOf(value), ...origin } })) },
    { weight: 1, arbitrary: live(portal.otherAdmin) },
    { weight: 1, arbitrary: fc.constantFrom(...sameOriginHeaders(portal)).map((origin) => ({ headers: origin })) },
    { weight: 1, arbitrary: fc.constant<Session>({ headers: { authorization: `Bearer ${world.home.adminUser.token}`, origin: portal.origin } }) },
  );
  const sessionFor = (path: string) => {
    const own = path.startsWith('/worker/') ? worker : portalUser;
    const wrongKind = path.startsWith('/worker/') ? portalUser : worker;
    return fc.oneof({ weight: 6, arbitrary: own }, { weight: 1, arbitrary: wrongKind }, { weight: 2, arbitrary: hostileSession });
  };

  const documented = fc.constantFrom(...proxied).chain(({ service, operation, spec }) =>
    fc.tuple(requestArbitrary(operation, spec, world), sessionFor(operation.path), fc.nat(9)).map(([direct, session, keep]): FuzzRequest => {
      // The page holds no token: mostly drop the direct request's credential; now and then it rides along.
      const headers = Object.fromEntries(Object.entries(direct.headers).filter(([name]) => keep === 0 || !/^(authorization|x-api-key)$/i.test(name)));
      return { ...direct, app: 'portal', operation: PROXY_OPERATION, path: `/api/${service}${direct.path}`, headers: { ...headers, ...session.headers }, sign: undefined };
    }),
  );

  const crafted = fc
    .record({
      method: anyMethod,
      service: serviceNames,
      path: hostilePaths(world),
      query: hostileQuery,
      session: fc.oneof({ weight: 3, arbitrary: portalUser }, { weight: 3, arbitrary: worker }, { weight: 2, arbitrary: hostileSession }),
      body: hostileBody(),
    })
    .map(({ method, service, path, query, session, body }): FuzzRequest => ({
      app: 'portal',
      operation: PROXY_OPERATION,
      method,
      path: `/api/${service}${path}${query}`,
      headers: { ...body.headers, ...session.headers },
      body: method === 'HEAD' ? undefined : body.body,
      bodyPreview: body.body && body.body.length > 200 ? `<${body.body.length} bytes>` : body.body?.toString('utf8'),
    }));

  return fc.oneof({ weight: 3, arbitrary: documented }, { weight: 2, arbitrary: crafted });
}

/** The proxy's key in the operation table. */
export const PROXY_OPERATION = 'ANY /api/{service}/{path}';
