import { HEADER_WEBHOOK_KEY_ID, KEY_ID_PATTERN } from './constants.js';
import { KeySet } from './ed25519.js';
import { readHeader, type HeaderSource } from './headers.js';
import type { RawBody } from './signature.js';
import { verifyWithKeySet, type VerifyResult, type VerifyWithKeySetOptions } from './verify.js';

export interface RemoteKeySetOptions {
  /** The platform's key set, e.g. `https://webhooks.example.com/.well-known/webhook-keys.json`. */
  readonly url: string;
  /** How long a fetched key set is used when the response names no `max-age`. Default 300 seconds. */
  readonly defaultMaxAgeSeconds?: number;
  /**
   * The least time between two fetches caused by an unknown key id, so requests naming made-up ids
   * cannot make you hammer the URL. Default 30 seconds.
   */
  readonly minRefetchIntervalSeconds?: number;
  /** Per-fetch timeout. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Defaults to `Date.now`. */
  readonly clock?: () => number;
}

const MAX_KEY_SET_BYTES = 64 * 1024;

/**
 * The platform's published key set, fetched on first use and cached (for the response's `max-age`).
 * A request signed by a key the cached set does not know triggers one fresh fetch (at most every
 * `minRefetchIntervalSeconds`), so a newly rotated key is picked up at once. If a refresh fails, the
 * last good key set stays in use; a first fetch that fails makes `verify` throw (your side, not the
 * sender's: answer 5xx so the platform retries).
 */
export class RemoteKeySet {
  private cached?: { keySet: KeySet; fetchedAt: number; expiresAt: number };
  private inFlight?: Promise<KeySet>;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: () => number;

  constructor(private readonly options: RemoteKeySetOptions) {
    if (typeof options?.url !== 'string' || !/^https?:\/\//.test(options.url)) throw new TypeError('url must be an http(s) URL');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? Date.now;
  }

  /** Verifies a `v1a` request (see `verifyWithKeySet`), fetching the key set when needed. */
  async verify(request: { readonly headers: HeaderSource }, body: RawBody, options?: VerifyWithKeySetOptions): Promise<VerifyResult> {
    const kid = readHeader(request?.headers, HEADER_WEBHOOK_KEY_ID, { maxLength: 64 });
    const keySet = await this.keySet(kid.status === 'present' && KEY_ID_PATTERN.test(kid.value) ? kid.value : undefined);
    return verifyWithKeySet(request, body, keySet, options);
  }

  /** The key set, fresh enough to hold `kid` if the platform publishes it. */
  async keySet(kid?: string): Promise<KeySet> {
    const now = this.clock();
    const cached = this.cached;
    if (cached && now < cached.expiresAt && (kid === undefined || cached.keySet.has(kid))) return cached.keySet;
    const minInterval = (this.options.minRefetchIntervalSeconds ?? 30) * 1000;
    if (cached && now < cached.expiresAt && now - cached.fetchedAt < minInterval) return cached.keySet;
    try {
      return await this.refresh();
    } catch (error) {
      if (cached) return cached.keySet;
      throw error;
    }
  }

  private refresh(): Promise<KeySet> {
    this.inFlight ??= this.download().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async download(): Promise<KeySet> {
    const response = await this.fetchImpl(this.options.url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    if (response.status !== 200) throw new Error(`key set ${this.options.url} answered HTTP ${response.status}`);
    const text = await response.text();
    if (text.length > MAX_KEY_SET_BYTES) throw new Error(`key set ${this.options.url} is larger than ${MAX_KEY_SET_BYTES} bytes`);
    const keySet = KeySet.from(JSON.parse(text));
    const fetchedAt = this.clock();
    this.cached = { keySet, fetchedAt, expiresAt: fetchedAt + maxAgeSeconds(response.headers.get('cache-control'), this.options.defaultMaxAgeSeconds ?? 300) * 1000 };
    return keySet;
  }
}

/** `max-age` of a Cache-Control value (capped at a day), or the default. `no-store`/`no-cache` count as 0. */
function maxAgeSeconds(cacheControl: string | null, fallback: number): number {
  if (cacheControl === null) return fallback;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,9})"?\s*(?:,|$)/i.exec(cacheControl);
  return match ? Math.min(Number(match[1]), 86_400) : fallback;
}
