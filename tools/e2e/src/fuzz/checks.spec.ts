import { describe, expect, it } from '@jest/globals';
import { answerViolations, apiVersionViolations, documentedProblemTypes, portalViolations, tenantViolations } from './checks.js';
import type { FuzzResponse } from './driver.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzWorld, PortalSessions } from './world.js';

const types = documentedProblemTypes();
const problem = (status: number, body: Record<string, unknown>, contentType = 'application/problem+json; charset=utf-8'): FuzzResponse => ({
  status,
  headers: { 'content-type': contentType },
  text: JSON.stringify(body),
  ms: 1,
});
const type = (slug: string) => `https://availability.example/problems/${slug}`;
const request = (path: string): FuzzRequest => ({ app: 'offers-api', operation: 'GET /offer/{id}', method: 'GET', path, headers: {} });

describe('answerViolations', () => {
  it('accepts a documented problem and any 2xx', () => {
    expect(answerViolations(problem(404, { type: type('not-found'), title: 'Not Found', status: 404 }), types)).toEqual([]);
    expect(answerViolations({ status: 201, headers: {}, text: 'x', ms: 1 }, types)).toEqual([]);
  });

  it('flags a 5xx and a missing answer', () => {
    expect(answerViolations(problem(500, { type: type('internal'), title: 'Internal Server Error', status: 500 }), types)).toEqual(['HTTP 500']);
    expect(answerViolations({ error: 'ECONNRESET: socket hang up', ms: 1 }, types)).toEqual(['no HTTP answer (ECONNRESET: socket hang up)']);
  });

  it('flags a 4xx that is not problem+json, or whose status, title or type is off', () => {
    expect(answerViolations(problem(431, { statusCode: 431 }, 'application/json'), types)).toHaveLength(4);
    expect(answerViolations(problem(400, { type: type('bad-request'), title: 'Bad Request', status: 413 }), types)).toEqual([
      'HTTP 400 problem has status 413',
    ]);
    expect(answerViolations(problem(413, { type: type('bad-request'), title: 'Payload Too Large', status: 413 }), types)).toEqual([
      'problem type bad-request is documented as 400, answered 413',
    ]);
    expect(answerViolations(problem(400, { type: type('made-up'), title: 'Bad Request', status: 400 }), types)[0]).toMatch(/not in docs\/errors.md/);
  });

  it('wants every validation problem to name its fields', () => {
    const base = { type: type('validation-failed'), title: 'Bad Request', status: 400 };
    expect(answerViolations(problem(400, { ...base, errors: { title: ['must be a string'] } }), types)).toEqual([]);
    expect(answerViolations(problem(400, base), types)).toHaveLength(1);
    expect(answerViolations(problem(400, { ...base, errors: { '': ['x'] } }), types)).toHaveLength(1);
    expect(answerViolations(problem(400, { ...base, errors: { title: 'not a list' } }), types)).toHaveLength(1);
  });

  it('reads only the headers of the answer to a HEAD, which has no body', () => {
    const head = { status: 404, headers: { 'content-type': 'application/problem+json; charset=utf-8' }, text: '', ms: 1 };
    expect(answerViolations(head, types, 'HEAD')).toEqual([]);
    expect(answerViolations({ ...head, headers: { 'content-type': 'text/html' } }, types, 'HEAD')).toHaveLength(1);
  });
});

describe('apiVersionViolations', () => {
  const ok = { status: 200, headers: {}, text: '{}', ms: 1 };

  it('flags an accepted request naming another version in any spelling', () => {
    for (const query of ['?api-version=2.0', '?API-VERSION=2.0', '?api-version[]=1.0', '?api-version[]=', '?api-version=1.0&api-version=2.0', '?Api-Version=%00']) {
      expect({ query, violations: apiVersionViolations(request(`/offer/1${query}`), ok) }).toEqual({ query, violations: [expect.any(String)] });
    }
  });

  it('accepts 1.0, no version, and refusals', () => {
    expect(apiVersionViolations(request('/offer/1?api-version=1.0'), ok)).toEqual([]);
    expect(apiVersionViolations(request('/offer/1'), ok)).toEqual([]);
    expect(apiVersionViolations(request('/offer/1?api-version=2.0'), { ...ok, status: 400 })).toEqual([]);
  });
});

describe('portalViolations', () => {
  const portal: PortalSessions = {
    origin: 'http://localhost:3005',
    cookieSecret: 'secret',
    homeAdmin: 'admin-cookie',
    homeMember: 'member-cookie',
    worker: 'worker-cookie',
    otherAdmin: 'other-cookie',
    revoked: 'revoked-cookie',
    liveToken: 'put_live',
    spare: [],
    kinds: new Map([
      ['admin-cookie', 'portal-user'],
      ['worker-cookie', 'worker'],
    ]),
  };
  const world = { portal } as FuzzWorld;
  const ok = { status: 200, headers: {}, text: '{}', ms: 1 };
  const through = (method: string, path: string, headers: FuzzRequest['headers']): FuzzRequest => ({ app: 'portal', operation: 'ANY /api/{service}/{path}', method, path, headers });
  const asAdmin = { cookie: '__Host-portal_session=admin-cookie', origin: portal.origin };
  const asWorker = { cookie: '__Host-portal_session=worker-cookie', origin: portal.origin };

  it('accepts a session reaching its own area by a plain path, from the portal’s origin', () => {
    expect(portalViolations(world, through('GET', '/api/offers/portal/offers?limit=1', asAdmin), ok)).toEqual([]);
    expect(portalViolations(world, through('PUT', '/api/offers/worker/offers/1/response', asWorker), ok)).toEqual([]);
    expect(portalViolations(world, through('POST', '/api/webhooks/portal/webhooks/test-events', { cookie: asAdmin.cookie, 'sec-fetch-site': 'same-origin' }), ok)).toEqual([]);
    expect(portalViolations(world, through('GET', '/api/offers/admin/deliveries', asAdmin), { ...ok, status: 404 })).toEqual([]);
  });

  it('flags a 2xx outside the session’s area, for a path that is not plain, or without a live session', () => {
    for (const [path, headers] of [
      ['/api/offers/worker/offers', asAdmin],
      ['/api/directory/portal/company-profile', asWorker],
      ['/api/webhooks/admin/deliveries', asAdmin],
      ['/api/webhooks/metrics', asAdmin],
      ['/api/directory/portal/../admin/organisations', asAdmin],
      ['/api/directory/portal/%2e%2e/admin', asAdmin],
      ['/api/directory/portal//company-profile', asAdmin],
      ['/api/directory/portal/', asAdmin],
      ['/api/Directory/portal/company-profile', asAdmin],
      ['/api/__proto__/portal/company-profile', asAdmin],
      ['/api/directory/portal/company-profile', { cookie: '__Host-portal_session=revoked-cookie', origin: portal.origin }],
      ['/api/directory/portal/company-profile', { origin: portal.origin }],
    ] as const) {
      expect({ path, violations: portalViolations(world, through('GET', path, headers), ok) }).toEqual({ path, violations: [expect.stringMatching(/through the portal/)] });
    }
  });

  it('flags GET /session naming someone without a live session', () => {
    for (const headers of [{ cookie: '__Host-portal_session=revoked-cookie' }, { cookie: 'portal_session=admin-cookie' }, {}] as Array<Record<string, string>>) {
      expect(portalViolations(world, through('GET', '/session', headers), ok)).toEqual([expect.stringMatching(/\/session with no live session/)]);
    }
    expect(portalViolations(world, through('HEAD', '/session?x=1', {}), ok)).toEqual([expect.stringMatching(/no live session/)]);
    expect(portalViolations(world, through('GET', '/session', { cookie: asAdmin.cookie }), ok)).toEqual([]);
    expect(portalViolations(world, through('GET', '/session', {}), { ...ok, status: 401 })).toEqual([]);
  });

  it('flags a change accepted from another origin, or with neither Origin nor Sec-Fetch-Site', () => {
    const crossSite: Array<Record<string, string | string[]>> = [{}, { origin: 'https://evil.example' }, { origin: 'null' }, { origin: [portal.origin, portal.origin] }, { 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }];
    for (const headers of crossSite) {
      const request = through('DELETE', '/session', { cookie: asAdmin.cookie, ...headers });
      expect(portalViolations(world, request, { ...ok, status: 204 })).toEqual([expect.stringMatching(/portal's origin/)]);
    }
    expect(portalViolations(world, through('GET', '/session', { cookie: asAdmin.cookie, origin: 'https://evil.example' }), ok)).toEqual([]);
  });
});

describe('tenantViolations', () => {
  const home = { offerIds: ['home-offer'] };
  const other = { apiKey: 'apk_other', adminUser: { token: 'put_other_admin' }, memberUser: { token: 'put_other_member' }, workers: [] };
  const world = { home, other, portal: { otherAdmin: 'other-cookie' }, deliveryIds: ['7'] } as unknown as FuzzWorld;
  const asOther = (path: string): FuzzRequest => ({ ...request(path), app: 'webhook-dispatcher', headers: { authorization: 'Bearer put_other_admin' } });
  const answer = (text: string): FuzzResponse => ({ status: 200, headers: {}, text, ms: 1 });

  it('flags a 2xx for another organisation’s offer or delivery named in the path', () => {
    expect(tenantViolations(world, asOther('/offer/home-offer'), answer('{}'))).toHaveLength(1);
    expect(tenantViolations(world, asOther('/portal/webhooks/deliveries/7'), answer('{}'))).toHaveLength(1);
  });

  it('accepts a filter naming another organisation’s offer when it finds nothing, and flags one that finds it', () => {
    expect(tenantViolations(world, asOther('/portal/webhooks/deliveries?offerId=home-offer'), answer('{"items":[],"nextCursor":null}'))).toEqual([]);
    expect(tenantViolations(world, asOther('/portal/webhooks/deliveries?offerId=home-offer'), answer('{"items":[{"offerId":"home-offer"}]}'))).toHaveLength(1);
  });

  it('leaves the home organisation’s own credentials alone', () => {
    expect(tenantViolations(world, { ...asOther('/offer/home-offer'), headers: { authorization: 'Bearer apk_home' } }, answer('{"id":"home-offer"}'))).toEqual([]);
  });

  it('judges the credential authentication settles on: the Bearer token, else X-Api-Key', () => {
    const headers = (authorization: string, apiKey: string) => ({ ...asOther('/portal/webhooks/deliveries/7'), headers: { authorization, 'x-api-key': apiKey } });
    // Another organisation's key beside the home organisation's Bearer token: the request is the home organisation's.
    expect(tenantViolations(world, headers('Bearer put_home_admin', 'apk_other'), answer('{"offerId":"home-offer"}'))).toEqual([]);
    // Another organisation's Bearer token beside the home organisation's key: it is the other's.
    expect(tenantViolations(world, headers('Bearer put_other_admin', 'apk_home'), answer('{"offerId":"home-offer"}'))).toHaveLength(1);
    // A Bearer line that is no token leaves X-Api-Key as the credential.
    expect(tenantViolations(world, headers('Bearer', 'apk_other'), answer('{"offerId":"home-offer"}'))).toHaveLength(1);
  });
});
