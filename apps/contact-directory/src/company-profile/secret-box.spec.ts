import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips, and never stores the plaintext', () => {
    const sealed = box.seal('whsec_top-secret-value', 'org-1');
    expect(sealed).not.toContain('top-secret');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(box.open(sealed, 'org-1')).toBe('whsec_top-secret-value');
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal('same', 'org')).not.toBe(box.seal('same', 'org'));
  });

  it('refuses another context, another key, tampering and garbage', () => {
    const sealed = box.seal('secret', 'org-1');
    expect(box.open(sealed, 'org-2')).toBeUndefined();
    expect(new SecretBox(randomBytes(32)).open(sealed, 'org-1')).toBeUndefined();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(box.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'org-1')).toBeUndefined();
    expect(box.open('secret', 'org-1')).toBeUndefined();
    expect(box.open('v1.a.b.c.d', 'org-1')).toBeUndefined();
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(TypeError);
  });
});
