import { describe, expect, it } from '@jest/globals';
import { decodeSession, encodeSession, type PortalSession } from './portal-session.js';

const session: PortalSession = {
  token: 'put_0123456789abcdefghijklmnopqrstuvwxyzABCDEF',
  person: { kind: 'portal-user', id: 'u1', name: 'Ada', organisationId: 'o1', organisationName: 'Harbour', role: 'admin', expiresAt: '2026-11-25T12:00:00.000Z' },
};

describe('the session cookie value', () => {
  it('reads back what was written until the session expires', () => {
    const value = encodeSession(session);
    expect(decodeSession(value, new Date('2026-11-25T11:59:59Z'))).toEqual(session);
    expect(decodeSession(value, new Date('2026-11-25T12:00:00Z'))).toBeUndefined();
  });

  it('refuses what is not a session: garbage, a worker token on a portal user, an oversized value', () => {
    const now = new Date('2026-11-25T00:00:00Z');
    expect(decodeSession('not-base64-json', now)).toBeUndefined();
    expect(decodeSession(encodeSession({ ...session, token: 'wkt_0123456789abcdefghijklmnop' }), now)).toBeUndefined();
    expect(decodeSession(encodeSession({ ...session, token: 'sk_0123456789abcdefghijklmnop' }), now)).toBeUndefined();
    expect(decodeSession('a'.repeat(5_000), now)).toBeUndefined();
  });
});
