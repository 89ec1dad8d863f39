import { describe, expect, it } from '@jest/globals';
import { adminTokenMatches, bearerToken } from './admin-token.js';

describe('admin token check', () => {
  it('reads the token of a Bearer authorization header', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(['Bearer abc'])).toBeUndefined();
  });

  it('matches only the exact token', () => {
    expect(adminTokenMatches('s3cret-token', 's3cret-token')).toBe(true);
    expect(adminTokenMatches('s3cret-toke', 's3cret-token')).toBe(false);
    expect(adminTokenMatches('s3cret-token!', 's3cret-token')).toBe(false);
    expect(adminTokenMatches('S3CRET-TOKEN', 's3cret-token')).toBe(false);
    expect(adminTokenMatches('', 's3cret-token')).toBe(false);
    expect(adminTokenMatches(undefined, 's3cret-token')).toBe(false);
  });
});
