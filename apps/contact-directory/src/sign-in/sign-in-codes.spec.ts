import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { accountLabel, issueSignInCode, linkMinutes, mailPaceKey, signInCodeHash } from './sign-in-codes.js';

describe('sign-in codes', () => {
  it('are 32 random bytes in base64url, stored as their SHA-256 only', () => {
    const issued = issueSignInCode();
    expect(issued.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(issued.code, 'base64url')).toHaveLength(32);
    expect(issued.codeHash).toBe(createHash('sha256').update(issued.code, 'utf8').digest('hex'));
    expect(signInCodeHash(issued.code)).toBe(issued.codeHash);
    expect(new Set(Array.from({ length: 1000 }, () => issueSignInCode().code)).size).toBe(1000);
  });

  it('a presented value that cannot be a code is never looked up', () => {
    const { code } = issueSignInCode();
    for (const wrong of ['', code.slice(1), `${code}A`, `${code.slice(1)}=`, `${code.slice(1)}+`, `${code.slice(1)}/`, ` ${code.slice(1)}`, 'put_x']) {
      expect(signInCodeHash(wrong)).toBeUndefined();
    }
  });

  it('an address is paced under one key however it is spelt, and the key is not the address', () => {
    expect(mailPaceKey('Sam@Acme.Example')).toBe(mailPaceKey('sam@acme.example'));
    expect(mailPaceKey('sam@acme.example')).toMatch(/^[0-9a-f]{64}$/);
    expect(mailPaceKey('sam@acme.example')).not.toBe(mailPaceKey('kim@acme.example'));
  });

  it('the e-mail says whole minutes, rounded up', () => {
    expect(linkMinutes(900)).toBe(15);
    expect(linkMinutes(901)).toBe(16);
    expect(linkMinutes(1)).toBe(1);
    expect(linkMinutes(24 * 3600)).toBe(1440);
  });

  it('names a portal user by organisation, a worker by name and organisations, within 200 characters', () => {
    expect(accountLabel({ kind: 'user', organisationName: 'Acme Staffing' })).toBe('Acme Staffing');
    expect(accountLabel({ kind: 'worker', name: 'Ann', organisationNames: ['Acme', 'Northside'] })).toBe('Ann (Acme, Northside)');
    expect(accountLabel({ kind: 'worker', name: 'Ann', organisationNames: [] })).toBe('Ann');
    const long = accountLabel({ kind: 'worker', name: 'Ann', organisationNames: Array.from({ length: 30 }, (_, i) => `Organisation ${i}`) });
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
