import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SecretBox } from '../company-profile/secret-box.js';
import { IMAGE_PATH, ImageReferences } from './image-references.js';

describe('ImageReferences', () => {
  const key = randomBytes(32);
  let now = 1_000_000;
  const references = new ImageReferences(key, () => now, 60_000);
  const url = 'https://img.example/jo.png';

  it('opens its own reference for the organisation it was made for, until it expires', () => {
    const reference = references.seal(url, 'org-1');
    expect(reference).not.toContain('img.example');
    expect(references.open(reference, 'org-1')).toBe(url);
    expect(references.open(reference, 'org-2')).toBeUndefined();
    now += 60_000;
    expect(references.open(reference, 'org-1')).toBeUndefined();
  });

  it('refuses forged, foreign and malformed references', () => {
    const reference = references.seal(url, 'org-1');
    const [version, iv, tag, body] = reference.split('.');
    expect(references.open([version, iv, tag, `${body.slice(0, -2)}AA`].join('.'), 'org-1')).toBeUndefined();
    expect(references.open(new ImageReferences(randomBytes(32), () => now).seal(url, 'org-1'), 'org-1')).toBeUndefined();
    // A webhook secret sealed with the directory's key is no reference: the key is derived for references alone.
    expect(references.open(new SecretBox(key).seal(JSON.stringify({ u: url, x: now + 1 }), 'contact-suggestion-image:org-1'), 'org-1')).toBeUndefined();
    for (const bad of [undefined, 42, ['a'], '', 'v1.x.y.z', 'x'.repeat(9_000)]) expect(references.open(bad, 'org-1')).toBeUndefined();
  });

  it('gives the path of the platform’s copy, the reference escaped as a query parameter', () => {
    const path = references.path(url, 'org-1');
    expect(path.startsWith(`${IMAGE_PATH}?ref=`)).toBe(true);
    expect(references.open(decodeURIComponent(path.slice(`${IMAGE_PATH}?ref=`.length)), 'org-1')).toBe(url);
  });
});
