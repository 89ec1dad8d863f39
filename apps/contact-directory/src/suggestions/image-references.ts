import { hkdfSync } from 'node:crypto';
import { SecretBox } from '../company-profile/secret-box.js';

/** How long a reference in a search answer can be shown: a page left open keeps its pictures for a while. */
export const IMAGE_REFERENCE_TTL_MS = 60 * 60 * 1000;

/** The path, on this service, of the platform's copy of a provider's image. */
export const IMAGE_PATH = '/portal/contact-suggestions/image';

/**
 * Opaque references to providers' profile images, so the portal's pages point at the platform, never
 * at a provider. A reference is the image URL and an expiry sealed (AES-256-GCM) under a key derived
 * from the directory's secret key, bound to the searching organisation: the image endpoint fetches
 * only URLs a provider suggested to that organisation, so it is no open proxy, and nothing is kept
 * per search (any instance opens any reference).
 */
export class ImageReferences {
  private readonly box: SecretBox;

  constructor(
    secretKey: Buffer,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = IMAGE_REFERENCE_TTL_MS,
  ) {
    // Its own key: a reference never opens as a stored webhook secret, nor one as a reference.
    this.box = new SecretBox(Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'contact-suggestion-image-references', 32)));
  }

  seal(url: string, organisationId: string): string {
    return this.box.seal(JSON.stringify({ u: url, x: this.now() + this.ttlMs }), context(organisationId));
  }

  /** The URL, or undefined for a reference that is forged, expired or another organisation's. */
  open(reference: unknown, organisationId: string): string | undefined {
    if (typeof reference !== 'string' || reference.length > 8_000) return undefined;
    const plain = this.box.open(reference, context(organisationId));
    if (plain === undefined) return undefined;
    const { u, x } = JSON.parse(plain) as { u: unknown; x: unknown };
    return typeof u === 'string' && typeof x === 'number' && x > this.now() ? u : undefined;
  }

  /** The path the page's <img> uses (relative to this service's API). */
  path(url: string, organisationId: string): string {
    return `${IMAGE_PATH}?ref=${encodeURIComponent(this.seal(url, organisationId))}`;
  }
}

const context = (organisationId: string) => `contact-suggestion-image:${organisationId}`;
