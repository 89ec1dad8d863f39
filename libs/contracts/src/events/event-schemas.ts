import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ContactAddedEvent, InviteCreatedEvent, SignInRequestedEvent, WebhookEndpointDisabledEvent } from './directory-events.js';
import { EventSubject } from './event-subjects.js';
import { OfferCompletedEvent, OfferCreatedEvent, OfferResponseRecordedEvent, OfferWithdrawnEvent } from './offer-events.js';

/** Every event on the stream, by subject (without a deployment's prefix): the one definition of each. */
export const EVENT_SCHEMAS: Record<EventSubject, TSchema> = {
  [EventSubject.OfferCreated]: OfferCreatedEvent,
  [EventSubject.OfferResponseRecorded]: OfferResponseRecordedEvent,
  [EventSubject.OfferCompleted]: OfferCompletedEvent,
  [EventSubject.OfferWithdrawn]: OfferWithdrawnEvent,
  [EventSubject.ContactAdded]: ContactAddedEvent,
  [EventSubject.InviteCreated]: InviteCreatedEvent,
  [EventSubject.WebhookEndpointDisabled]: WebhookEndpointDisabledEvent,
  [EventSubject.SignInRequested]: SignInRequestedEvent,
};

/** Which service writes each event, and which consume it (the AsyncAPI document says the same). */
export const EVENT_PARTIES: Record<EventSubject, { producer: string; consumers: string[] }> = {
  [EventSubject.OfferCreated]: { producer: 'offers-api', consumers: ['notification-service'] },
  [EventSubject.OfferResponseRecorded]: { producer: 'offers-api', consumers: ['webhook-dispatcher', 'notification-service'] },
  [EventSubject.OfferCompleted]: { producer: 'offers-api', consumers: ['notification-service'] },
  [EventSubject.OfferWithdrawn]: { producer: 'offers-api', consumers: ['notification-service'] },
  [EventSubject.ContactAdded]: { producer: 'contact-directory', consumers: ['webhook-dispatcher'] },
  [EventSubject.InviteCreated]: { producer: 'contact-directory', consumers: ['notification-service'] },
  [EventSubject.WebhookEndpointDisabled]: { producer: 'webhook-dispatcher', consumers: ['notification-service'] },
  [EventSubject.SignInRequested]: { producer: 'contact-directory', consumers: ['contact-directory'] },
};

const checks = new Map<string, TypeCheck<TSchema>>();

function checkFor(subject: string): TypeCheck<TSchema> | undefined {
  let check = checks.get(subject);
  if (!check && subject in EVENT_SCHEMAS) {
    check = TypeCompiler.Compile(EVENT_SCHEMAS[subject as EventSubject]);
    checks.set(subject, check);
  }
  return check;
}

/** Why `payload` is not a valid event of `subject` (the first problem, with its JSON path), or undefined when it is. */
export function eventProblem(subject: string, payload: unknown): string | undefined {
  const check = checkFor(subject);
  if (!check) return `${subject} is not an event of the platform`;
  if (check.Check(payload)) return undefined;
  const error = check.Errors(payload).First();
  return error ? `${error.path || '/'}: ${error.message}` : 'does not match its schema';
}
