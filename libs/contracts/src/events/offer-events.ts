import { type Static, Type } from '@sinclair/typebox';
import { RecipientResponse, WORKER_ANSWERS } from '../offers/offer-values.js';
import { EventEnvelope, EventText, Uuid, UtcTimestamp, WorkerId } from './event-envelope.js';

/**
 * The events of offers-api, each defined once: the schema is the JSON Schema the producer and every
 * consumer check (event-schemas.ts) and the AsyncAPI document publishes; the type is derived from it.
 */
export const OfferTimeSlot = Type.Object({ start: EventText(), end: EventText() });
export type OfferTimeSlot = Static<typeof OfferTimeSlot>;

/** `offers.created`: push each recipient about the new offer. */
export const OfferCreatedEvent = Type.Composite(
  [
    EventEnvelope,
    Type.Object({
      offerId: Uuid,
      title: EventText(),
      createdByUserId: EventText({ minLength: 1 }),
      notifyEmailAddress: Type.Union([EventText(), Type.Null()]),
      events: Type.Array(OfferTimeSlot, { minItems: 1 }),
      workerIds: Type.Array(WorkerId, { minItems: 1 }),
    }),
  ],
  { description: 'A sender created an offer; each recipient is pushed about it.' },
);
export type OfferCreatedEvent = Static<typeof OfferCreatedEvent>;

/** `offers.response.recorded`: a worker applied or rejected (again, if they changed their mind). */
export const OfferResponseRecordedEvent = Type.Composite(
  [
    EventEnvelope,
    Type.Object({
      offerId: Uuid,
      workerId: WorkerId,
      response: Type.Union(WORKER_ANSWERS.map((answer) => Type.Literal(answer))),
      previousResponse: Type.Union(Object.values(RecipientResponse).map((response) => Type.Literal(response))),
      respondedAt: UtcTimestamp,
      sequence: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: 'The count of this recipient’s answers, this one included: a later answer has a higher one. Absent on events from producers that predate it.',
        }),
      ),
    }),
  ],
  { description: 'A worker applied or rejected; the sending organisation’s integrator gets a Worker Offer Response.' },
);
export type OfferResponseRecordedEvent = Static<typeof OfferResponseRecordedEvent>;

/** `offers.completed`: tell each recipient whether they were successful. */
export const OfferCompletedEvent = Type.Composite(
  [
    EventEnvelope,
    Type.Object({
      offerId: Uuid,
      title: EventText(),
      successfulWorkerIds: Type.Array(WorkerId),
      unsuccessfulWorkerIds: Type.Array(WorkerId),
    }),
  ],
  { description: 'The sender completed the offer; each recipient is told whether they were successful.' },
);
export type OfferCompletedEvent = Static<typeof OfferCompletedEvent>;

/** `offers.withdrawn`: tell every original recipient. */
export const OfferWithdrawnEvent = Type.Composite(
  [
    EventEnvelope,
    Type.Object({
      offerId: Uuid,
      title: EventText(),
      workerIds: Type.Array(WorkerId),
    }),
  ],
  { description: 'The sender withdrew the offer; every original recipient is told.' },
);
export type OfferWithdrawnEvent = Static<typeof OfferWithdrawnEvent>;
