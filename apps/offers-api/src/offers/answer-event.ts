import { randomUUID } from 'node:crypto';
import { EventSubject, type OfferResponseRecordedEvent, RecipientResponse, type WorkerAnswer } from '@availability/contracts';
import { type OutboxMessage, outboxMessage } from '@availability/messaging';

/** The `offers.response.recorded` event as its statement writes it (OffersRepository.answer). */
export interface AnswerEvent {
  eventId: string;
  subject: typeof EventSubject.OfferResponseRecorded;
  /** occurredAt and respondedAt: the moment the answer was taken. */
  at: string;
  /** The trace of the request that answered (see OutboxMessage). */
  traceparent?: string;
  requestId?: string;
}

/** Stands in for what only the locked rows know, so the rest of the event can be checked before the statement runs. */
const FROM_THE_OFFER_ROW = '00000000-0000-4000-8000-000000000000';

/**
 * The answer's event is written by the one statement that records the answer, and three of its fields
 * are read there from the locked rows: the offer's organisation (a uuid column), the answer it
 * replaces (a column whose CHECK allows only the schema's values) and the recipient's answer count
 * (an integer the statement increments from 0, so at least 1). Everything the service supplies is
 * checked against the event's schema here, before the statement runs, as `outboxMessage` checks every
 * other event: a value the schema refuses fails the answer instead of reaching the outbox.
 */
export function answerEvent(offerId: string, workerId: string, response: WorkerAnswer, at: Date): AnswerEvent {
  const event: OfferResponseRecordedEvent = {
    eventId: randomUUID(),
    occurredAt: at.toISOString(),
    organisationId: FROM_THE_OFFER_ROW,
    offerId,
    workerId,
    response,
    previousResponse: RecipientResponse.Awaiting,
    respondedAt: at.toISOString(),
    sequence: 1,
  };
  const checked = outboxMessage(EventSubject.OfferResponseRecorded, event);
  return { eventId: checked.eventId, subject: EventSubject.OfferResponseRecorded, at: event.occurredAt, traceparent: checked.traceparent, requestId: checked.requestId };
}

/** The outbox row the answer's statement wrote, as the relay publishes it: `payload` is the row's JSON as written. */
export function answerMessage(event: AnswerEvent, payload: string): OutboxMessage {
  return { eventId: event.eventId, subject: event.subject, payload, traceparent: event.traceparent, requestId: event.requestId };
}
