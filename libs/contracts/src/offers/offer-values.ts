/** Recipient `response` values (DESIGN 3). */
export const RecipientResponse = {
  Awaiting: 'awaiting',
  Applied: 'applied',
  Rejected: 'rejected',
} as const;
export type RecipientResponse = (typeof RecipientResponse)[keyof typeof RecipientResponse];

/** What a worker may answer. */
export const WORKER_ANSWERS = [RecipientResponse.Applied, RecipientResponse.Rejected] as const;
export type WorkerAnswer = (typeof WORKER_ANSWERS)[number];

/** Recipient `confirmation` values: empty until the offer ends. */
export const RecipientConfirmation = {
  None: '',
  Successful: 'successful',
  Unsuccessful: 'unsuccessful',
  Withdrawn: 'withdrawn',
} as const;
export type RecipientConfirmation = (typeof RecipientConfirmation)[keyof typeof RecipientConfirmation];

/** Size bounds of an offer (docs/offers-api.md). */
export const OfferLimits = {
  titleLength: 200,
  detailsLength: 10_000,
  idLength: 64,
  userIdLength: 128,
  locationPlaceIdLength: 256,
  emailLength: 320,
  workers: 10_000,
  events: 100,
  idempotencyKeyLength: 255,
  /** Bytes; a 10,000-worker offer with long ids fits with room to spare. */
  bodyBytes: 2 * 1024 * 1024,
} as const;
