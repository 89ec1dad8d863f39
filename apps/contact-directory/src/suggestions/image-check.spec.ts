import { describe, expect, it } from '@jest/globals';
import { checkImage } from './image-check.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0]);
const GIF = Buffer.from('GIF89a....', 'latin1');
const WEBP = Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1');

describe('checkImage', () => {
  it.each([
    ['image/png', PNG],
    ['IMAGE/PNG; charset=binary', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
  ])('accepts %s whose bytes are one', (type, bytes) => {
    expect(checkImage(type, bytes)).toEqual({ type: type.split(';')[0].toLowerCase() });
  });

  it.each([
    ['image/svg+xml', Buffer.from('<svg/>'), /image\/svg\+xml is not an allowed/],
    ['text/html', Buffer.from('<html>'), /text\/html is not an allowed/],
    [undefined, PNG, /\(none\) is not an allowed/],
    [['image/png', 'image/png'], PNG, /\(none\)/],
    ['image/png', Buffer.from('<html><script>'), /not a image\/png image/],
    ['image/jpeg', PNG, /not a image\/jpeg image/],
    ['image/webp', Buffer.from('RIFF....WAVE', 'latin1'), /not a image\/webp image/],
    ['image/gif', Buffer.alloc(0), /not a image\/gif image/],
  ])('refuses %p', (type, bytes, why) => {
    const verdict = checkImage(type, bytes);
    expect('error' in verdict && verdict.error).toMatch(why);
  });
});
