import type { OfferView, WorkerOfferView } from '@availability/contracts';
import { type HttpResult, request, type RequestOptions } from './http.js';

/** The offers API as a sender (API key) or a worker (worker token) calls it. */
export class OffersClient {
  constructor(
    readonly baseUrl: string,
    private readonly credential?: string,
  ) {}

  as(credential: string): OffersClient {
    return new OffersClient(this.baseUrl, credential);
  }

  call<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers = { ...(this.credential ? { authorization: `Bearer ${this.credential}` } : {}), ...options.headers };
    return request<T>(this.baseUrl, method, path, { ...options, headers });
  }

  createOffer(body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.call('POST', '/offer', { body, headers });
  }

  getOffer(id: string): Promise<HttpResult<OfferView>> {
    return this.call<OfferView>('GET', `/offer/${id}`);
  }

  complete(id: string, workerIds: unknown): Promise<HttpResult> {
    return this.call('POST', `/offer/${id}/complete?api-version=1.0`, { body: workerIds });
  }

  withdraw(id: string): Promise<HttpResult> {
    return this.call('GET', `/offer/${id}/withdraw`);
  }

  myOffers(query = ''): Promise<HttpResult<{ offers: WorkerOfferView[]; nextCursor: string | null }>> {
    return this.call('GET', `/worker/offers${query}`);
  }

  myOffer(offerId: string): Promise<HttpResult<WorkerOfferView>> {
    return this.call<WorkerOfferView>('GET', `/worker/offers/${offerId}`);
  }

  answer(offerId: string, response: string): Promise<HttpResult<WorkerOfferView>> {
    return this.call<WorkerOfferView>('PUT', `/worker/offers/${offerId}/response`, { body: { response } });
  }
}

/** A valid create-offer body for the given workers, starting tomorrow. */
export function offerBody(createdByUserId: string, workerIds: string[], overrides: Record<string, unknown> = {}) {
  const day = 24 * 60 * 60 * 1000;
  const start = new Date(Math.ceil(Date.now() / day) * day + day + 8 * 3600_000);
  const slot = (offsetDays: number) => ({
    start: new Date(start.getTime() + offsetDays * day).toISOString(),
    end: new Date(start.getTime() + offsetDays * day + 8 * 3600_000).toISOString(),
  });
  return {
    createdByUserId,
    title: 'Warehouse pickers, night shift',
    details: 'Hi-vis provided. Report to gate 3.',
    locationPlaceId: 'ChIJdd4hrwug2EcRmSrV3Vo6llI',
    notifyEmailAddress: 'bookings@example.com',
    workerIds,
    events: [slot(0), slot(1)],
    ...overrides,
  };
}
