import { setTimeout as sleep } from 'node:timers/promises';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/offers-api.js';
import { OffersApiError, retryAfterSeconds } from './problem.js';
import type { AssignedWorkerIds, IdempotencyKey, NewOffer, Offer, OfferId } from './types.js';

/** The version of the offers API this client is made for, sent with every call as `api-version`. */
export const API_VERSION = '1.0';

/** A rate limit's window is a minute, so no Retry-After of the API is longer. */
const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;

export interface SenderClientOptions {
  /** Where the offers API is served, e.g. `https://offers.example.com`; paths are appended to it. */
  baseUrl: string;
  /** An API key of the sending organisation (`apk_…`), sent as a Bearer token. */
  apiKey: string;
  /**
   * How many times a request refused with 429 is sent again once its Retry-After has passed.
   * 0, the default, throws the 429 as an {@link OffersApiError} at once.
   */
  rateLimitRetries?: number;
  /** When retrying, a Retry-After longer than this (in seconds) is thrown instead of waited out. Default 60. */
  maxRetryAfterSeconds?: number;
  /** Sends the requests; the global `fetch` unless given. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  /** Aborts the call, including a wait for Retry-After. */
  signal?: AbortSignal;
}

export interface CreateOfferOptions extends CallOptions {
  /** Makes the call safe to repeat: the same key with the same body answers the first offer's id (kept 24 hours). */
  idempotencyKey?: IdempotencyKey;
}

export interface CreatedOffer {
  id: OfferId;
  /** True when an earlier call with the same Idempotency-Key made the offer, and this one only read its id. */
  replayed: boolean;
}

/** The offers API as a sender (a hirer or an agency, with an API key) calls it. Every failure is an {@link OffersApiError}. */
export interface SenderClient {
  /** `POST /offer`: sends an offer of work to workers; answers its id. */
  createOffer(offer: NewOffer, options?: CreateOfferOptions): Promise<CreatedOffer>;
  /** `GET /offer/{id}`: the offer with each worker's current response. */
  getOffer(id: OfferId, options?: CallOptions): Promise<Offer>;
  /** `POST /offer/{id}/complete`: names the workers assigned the work (each must have applied); everyone is told. */
  completeOffer(id: OfferId, workerIds: AssignedWorkerIds, options?: CallOptions): Promise<void>;
  /** `GET /offer/{id}/withdraw`: every original worker is told; repeating it is harmless. */
  withdrawOffer(id: OfferId, options?: CallOptions): Promise<void>;
  /** The typed client underneath, with the API key and retries set, for reading a response whole. */
  readonly api: Client<paths>;
}

export function createSenderClient(options: SenderClientOptions): SenderClient {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingRateLimited(send, options.rateLimitRetries ?? 0, options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS),
  });
  const query = { 'api-version': API_VERSION };

  return {
    api,

    async createOffer(offer, { idempotencyKey, signal } = {}) {
      const header = idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey };
      // The id comes back as text/plain, not JSON.
      const result = await api.POST('/offer', { params: { query, header }, body: offer, parseAs: 'text', signal });
      const id = succeeded('POST /offer', result);
      return { id, replayed: result.response.headers.get('idempotent-replayed') === 'true' };
    },

    async getOffer(id, { signal } = {}) {
      return succeeded('GET /offer/{id}', await api.GET('/offer/{id}', { params: { path: { id }, query }, signal }));
    },

    async completeOffer(id, workerIds, { signal } = {}) {
      succeeded('POST /offer/{id}/complete', await api.POST('/offer/{id}/complete', { params: { path: { id }, query }, body: workerIds, parseAs: 'text', signal }));
    },

    async withdrawOffer(id, { signal } = {}) {
      succeeded('GET /offer/{id}/withdraw', await api.GET('/offer/{id}/withdraw', { params: { path: { id }, query }, parseAs: 'text', signal }));
    },
  };
}

/** The body of a success; anything else thrown as the problem it is. */
function succeeded<T>(operation: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) throw OffersApiError.fromResponse(operation, result.response, result.error);
  return result.data as T;
}

/**
 * Sends a request again after a 429's Retry-After, up to `retries` times. A 429 is refused before
 * the API does anything, so even `POST /offer` without an Idempotency-Key is safe to repeat.
 */
function retryingRateLimited(send: (request: Request) => Promise<Response>, retries: number, maxSeconds: number) {
  if (retries <= 0) return send;
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt += 1) {
      // A request's body can be read once: every attempt but the last sends a copy.
      const response = await send(attempt < retries ? request.clone() : request);
      if (response.status !== 429 || attempt >= retries) return response;
      const seconds = retryAfterSeconds(response.headers);
      if (seconds === undefined || seconds > maxSeconds) return response;
      await response.body?.cancel();
      await sleep(seconds * 1000, undefined, { signal: request.signal });
    }
  };
}
