import type { EventEnvelope } from './event-envelope.js';
import type { WorkerAnswer } from '../offers/offer-values.js';

export interface OfferTimeSlot {
  start: string;
  end: string;
}

/** `offers.created`: push each recipient about the new offer. */
export interface OfferCreatedEvent extends EventEnvelope {
  offerId: string;
  title: string;
  createdByUserId: string;
  notifyEmailAddress: string | null;
  events: OfferTimeSlot[];
  workerIds: string[];
}

/** `offers.response.recorded`: a worker applied or rejected (again, if they changed their mind). */
export interface OfferResponseRecordedEvent extends EventEnvelope {
  offerId: string;
  workerId: string;
  response: WorkerAnswer;
  previousResponse: string;
  respondedAt: string;
}

/** `offers.completed`: tell each recipient whether they were successful. */
export interface OfferCompletedEvent extends EventEnvelope {
  offerId: string;
  title: string;
  successfulWorkerIds: string[];
  unsuccessfulWorkerIds: string[];
}

/** `offers.withdrawn`: tell every original recipient. */
export interface OfferWithdrawnEvent extends EventEnvelope {
  offerId: string;
  title: string;
  workerIds: string[];
}
