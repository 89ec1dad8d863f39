import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { hashToken, isTokenHash, issueApiKey, issuePortalUserToken, issueWorkerToken, VISIBLE_PREFIX_LENGTH } from './credential-tokens.js';

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

describe('credential tokens', () => {
  it('issues API keys as apk_ + 32 random bytes in base64url, with their hash and visible prefix', () => {
    const key = issueApiKey();
    expect(key.token.startsWith('apk_')).toBe(true);
    expect(key.token.slice(4)).toMatch(BASE64URL_32_BYTES);
    expect(Buffer.from(key.token.slice(4), 'base64url')).toHaveLength(32);
    expect(key.tokenHash).toBe(hashToken(key.token));
    expect(key.visiblePrefix).toBe(key.token.slice(0, VISIBLE_PREFIX_LENGTH));
    expect(key.visiblePrefix).toHaveLength(12);
    expect(key.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('issues worker tokens as wkt_ + 32 random bytes in base64url', () => {
    const token = issueWorkerToken();
    expect(token.token.startsWith('wkt_')).toBe(true);
    expect(token.token.slice(4)).toMatch(BASE64URL_32_BYTES);
    expect(token.tokenHash).toBe(hashToken(token.token));
  });

  it('issues portal user tokens as put_ + 32 random bytes in base64url', () => {
    const token = issuePortalUserToken();
    expect(token.token.startsWith('put_')).toBe(true);
    expect(token.token.slice(4)).toMatch(BASE64URL_32_BYTES);
    expect(token.tokenHash).toBe(hashToken(token.token));
  });

  it('never issues the same credential twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => issueApiKey().token));
    const ids = new Set(Array.from({ length: 1000 }, () => issueWorkerToken().id));
    expect(tokens.size).toBe(1000);
    expect(ids.size).toBe(1000);
  });

  it('hashes as SHA-256 of the UTF-8 token in lowercase hex (what callers of VerifyCredential send)', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashToken('wkt_é')).toBe(createHash('sha256').update(Buffer.from('wkt_é', 'utf8')).digest('hex'));
  });

  it('recognises only well-formed token hashes', () => {
    expect(isTokenHash(hashToken('x'))).toBe(true);
    expect(isTokenHash(hashToken('x').toUpperCase())).toBe(false);
    expect(isTokenHash(hashToken('x').slice(1))).toBe(false);
    expect(isTokenHash(`${hashToken('x')}0`)).toBe(false);
    expect(isTokenHash("' OR 1=1 --")).toBe(false);
    expect(isTokenHash(undefined)).toBe(false);
    expect(isTokenHash(42)).toBe(false);
  });
});
