/** Image types the portal shows. Not SVG: it can carry script. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** What each type's files begin with, so a body labelled as an image is one (an HTML page called image/png is refused). */
const SIGNATURES: Record<ImageType, (bytes: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** The checked type of a provider's image, or why it is not shown. */
export function checkImage(contentType: unknown, bytes: Buffer): { type: ImageType } | { error: string } {
  const declared = (typeof contentType === 'string' ? contentType : '').split(';', 1)[0].trim().toLowerCase();
  if (!(IMAGE_TYPES as readonly string[]).includes(declared)) return { error: `content type ${declared === '' ? '(none)' : declared.slice(0, 100)} is not an allowed image type` };
  const type = declared as ImageType;
  return SIGNATURES[type](bytes) ? { type } : { error: `the body is not a ${type} image` };
}
