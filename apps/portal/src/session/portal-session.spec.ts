import { describe, expect, it } from '@jest/globals';
import { isSessionId, lifetimeLeft, newSessionId, openSession, type PortalSession, sealSession, sessionKey } from './portal-session.js';

const session: PortalSession = {
  token: 'put_0123456789abcdefghijklmnopqrstuvwxyzABCDEF',
  person: { kind: 'portal-user', id: 'u1', name: 'Ada', organisationId: 'o1', organisationName: 'Harbour', role: 'admin', expiresAt: '2026-11-25T12:00:00.000Z' },
};
const beforeExpiry = new Date('2026-11-25T11:59:59Z');

describe('session ids', () => {
  it('are 32 random bytes, never the same twice', () => {
    const ids = new Set(Array.from({ length: 100 }, newSessionId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect([id, isSessionId(id)]).toEqual([id, true]);
  });

  it('are refused in any other shape', () => {
    for (const value of ['', 'short', `${newSessionId()}x`, `${newSessionId().slice(1)}.`, session.token, 'a'.repeat(5_000)]) expect([value, isSessionId(value)]).toEqual([value, false]);
  });

  it('are kept under a key that is not the id and cannot be turned back into it', () => {
    const id = newSessionId();
    expect(sessionKey(id)).toBe(sessionKey(id));
    expect(sessionKey(id)).not.toBe(id);
    expect(sessionKey(id)).not.toBe(sessionKey(newSessionId()));
  });
});

describe('the stored record', () => {
  it('opens with its own id until the session expires', () => {
    const id = newSessionId();
    const record = sealSession(id, session);
    expect(openSession(id, record, beforeExpiry)).toEqual(session);
    expect(openSession(id, record, new Date('2026-11-25T12:00:00Z'))).toBeUndefined();
  });

  it('holds neither the token nor the person in the clear', () => {
    const record = sealSession(newSessionId(), session);
    for (const text of [record, Buffer.from(record, 'base64url').toString('latin1')]) {
      expect(text).not.toContain('put_');
      expect(text).not.toContain('Harbour');
    }
  });

  it('does not open with another id, changed, truncated or oversized', () => {
    const id = newSessionId();
    const record = sealSession(id, session);
    const bytes = Buffer.from(record, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    for (const [what, other, value] of [
      ['another id', newSessionId(), record],
      ['a changed byte', id, bytes.toString('base64url')],
      ['truncated', id, record.slice(0, 20)],
      ['empty', id, ''],
      ['oversized', id, 'A'.repeat(5_000)],
    ]) {
      expect([what, openSession(other, value, beforeExpiry)]).toEqual([what, undefined]);
    }
  });

  it('does not hold what is not a session: a worker token on a portal user, another credential, no expiry', () => {
    const id = newSessionId();
    for (const bad of [
      { ...session, token: 'wkt_0123456789abcdefghijklmnop' },
      { ...session, token: 'sk_0123456789abcdefghijklmnop' },
      { ...session, person: { ...session.person, expiresAt: 'never' } },
      { ...session, person: null },
    ]) {
      expect(openSession(id, sealSession(id, bad as PortalSession), beforeExpiry)).toBeUndefined();
    }
  });

  it('lives as long as the session has left', () => {
    expect(lifetimeLeft(session, new Date('2026-11-25T11:00:00Z'))).toBe(3_600_000);
    expect(lifetimeLeft(session, new Date('2026-11-25T13:00:00Z'))).toBe(0);
    expect(lifetimeLeft({ ...session, person: { ...session.person, expiresAt: 'never' } }, beforeExpiry)).toBe(0);
  });
});
