import { type OutboundClient, OutboundRequestError } from '@availability/outbound-http';
import { checkImage, type ImageType } from './image-check.js';

export interface ImageFetchOptions {
  timeoutMs: number;
  /** Larger images are refused (and not read further). */
  maxBytes: number;
  /** Images kept at most this long; a failure is remembered for `failureTtlMs`. */
  ttlMs: number;
  failureTtlMs: number;
  /** Bound on the bytes the cache holds; the oldest entries go first. */
  maxCacheBytes: number;
}

export const IMAGE_FETCH_DEFAULTS: ImageFetchOptions = {
  timeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  ttlMs: 10 * 60 * 1000,
  failureTtlMs: 60 * 1000,
  maxCacheBytes: 32 * 1024 * 1024,
};

export type ImageResult = { ok: true; type: ImageType; bytes: Buffer } | { ok: false; error: string };

interface Entry {
  result: ImageResult;
  expiresAt: number;
  size: number;
}

/**
 * Fetches providers' profile images for the portal, through the platform's outbound client (its
 * address policy, timeouts, no redirects), bounded in size and to the allowed image types, and keeps
 * them (and failures, briefly) in a bounded in-memory cache, so repeated views do not call the
 * provider again and concurrent views make one call.
 */
export class SuggestionImages {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<ImageResult>>();
  private cachedBytes = 0;

  constructor(
    private readonly client: OutboundClient,
    private readonly options: ImageFetchOptions = IMAGE_FETCH_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  get(url: string): Promise<ImageResult> {
    const cached = this.cache.get(url);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached.result);
    if (cached) this.forget(url, cached);
    let pending = this.inFlight.get(url);
    if (!pending) {
      pending = this.fetch(url).then((result) => {
        this.inFlight.delete(url);
        this.remember(url, result);
        return result;
      });
      this.inFlight.set(url, pending);
    }
    return pending;
  }

  private async fetch(url: string): Promise<ImageResult> {
    const { timeoutMs, maxBytes } = this.options;
    try {
      const response = await this.client.send({ url, method: 'GET', headers: { accept: 'image/png, image/jpeg, image/webp, image/gif' }, timeoutMs, maxResponseBytes: maxBytes, responseType: 'bytes' });
      if (response.status !== 200) return { ok: false, error: `answered HTTP ${response.status} instead of 200` };
      if (response.truncated) return { ok: false, error: `larger than ${maxBytes} bytes` };
      const verdict = checkImage(response.headers['content-type'], response.bytes ?? Buffer.alloc(0));
      if ('error' in verdict) return { ok: false, error: verdict.error };
      return { ok: true, type: verdict.type, bytes: response.bytes ?? Buffer.alloc(0) };
    } catch (error) {
      return { ok: false, error: error instanceof OutboundRequestError ? `${error.kind}: ${error.message}` : 'the call failed' };
    }
  }

  private remember(url: string, result: ImageResult): void {
    const size = (result.ok ? result.bytes.length : 0) + url.length + 64;
    if (size > this.options.maxCacheBytes) return;
    const previous = this.cache.get(url);
    if (previous) this.forget(url, previous);
    this.cache.set(url, { result, size, expiresAt: this.now() + (result.ok ? this.options.ttlMs : this.options.failureTtlMs) });
    this.cachedBytes += size;
    // Oldest first (insertion order) until the cache is within its bound.
    for (const [key, entry] of this.cache) {
      if (this.cachedBytes <= this.options.maxCacheBytes) break;
      this.forget(key, entry);
    }
  }

  private forget(url: string, entry: Entry): void {
    this.cache.delete(url);
    this.cachedBytes -= entry.size;
  }
}
