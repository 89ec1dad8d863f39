import type { components, paths } from './generated/offers-api.js';

// Every shape is read from the generated types by path and method, the API's contract, so a change
// to the document shows up here on the next `npm run clients:generate`.
export type { components as OffersApiComponents, paths as OffersApiPaths } from './generated/offers-api.js';

type CreateOffer = paths['/offer']['post'];

/** The body of `POST /offer` (spec 2.2). */
export type NewOffer = CreateOffer['requestBody']['content']['application/json'];

/** An offer's id: what `POST /offer` answers, and what the other calls take. */
export type OfferId = CreateOffer['responses'][201]['content']['text/plain'];

/** The `Idempotency-Key` header of `POST /offer`. */
export type IdempotencyKey = NonNullable<NonNullable<CreateOffer['parameters']['header']>['Idempotency-Key']>;

/** The offer with each worker's current response (spec 2.3), as `GET /offer/{id}` answers it. */
export type Offer = paths['/offer/{id}']['get']['responses'][200]['content']['application/json'];

/** One recipient of an offer, with their response and confirmation (spec 2.4). */
export type OfferRecipient = Offer['recipients'][number];

/** The body of `POST /offer/{id}/complete`: the ids of the workers assigned the work (spec 2.5). */
export type AssignedWorkerIds = paths['/offer/{id}/complete']['post']['requestBody']['content']['application/json'];

/** The body of every error response (RFC 9457, `application/problem+json`). */
export type ProblemDetails = components['schemas']['ProblemDetails'];
