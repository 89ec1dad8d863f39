import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mayCall } from './upstream-paths.js';

describe('mayCall', () => {
  it('lets portal users reach the portal APIs and workers the worker APIs, nothing else', () => {
    expect(mayCall('portal-user', '/portal/company-profile')).toBe(true);
    expect(mayCall('portal-user', '/portal/webhooks/deliveries/12/redeliver')).toBe(true);
    expect(mayCall('worker', '/worker/offers/0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b/response')).toBe(true);
    expect(mayCall('portal-user', '/worker/offers')).toBe(false);
    expect(mayCall('worker', '/portal/company-profile')).toBe(false);
    for (const path of ['/admin/deliveries', '/metrics', '/openapi.json', '/portal/', '/portal', '', '/']) {
      expect(mayCall('portal-user', path)).toBe(false);
      expect(mayCall('worker', path)).toBe(false);
    }
  });

  it('refuses any path that could be read as another path upstream (dots, escapes, backslashes, empty segments)', () => {
    const tricky = fc.constantFrom('..', '%2e%2e', '%2F', '\\', '//', '.', '%00', ';', '?');
    fc.assert(
      fc.property(fc.constantFrom<'portal-user' | 'worker'>('portal-user', 'worker'), fc.array(fc.stringMatching(/^[a-z0-9-]{0,8}$/), { maxLength: 4 }), tricky, (kind, segments, trick) => {
        const area = kind === 'portal-user' ? 'portal' : 'worker';
        const path = `/${area}/${[...segments, trick, 'admin'].join('/')}`;
        expect(mayCall(kind, path)).toBe(false);
      }),
    );
  });
});
