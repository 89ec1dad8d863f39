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
  /**
   * Bytes. The largest offer the API reads (every id, string and slot at its longest, its text in
   * four-byte characters, even written with every one escaped) is about 790 KiB, and fits with room
   * for formatting; a body of junk, which is read and parsed before it is refused, costs no more than
   * about that (body-limit.spec.ts in offers-api).
   */
  bodyBytes: 1024 * 1024,
} as const;
