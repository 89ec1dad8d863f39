import { type Static, Type } from '@sinclair/typebox';
import { EventEnvelope, EventText, UtcTimestamp, Uuid, WorkerId } from './event-envelope.js';

/**
 * `contacts.added`: a worker added a contact at an organisation, to share availability with it.
 * `organisationId` is that organisation: its integrator gets `GET {base}/contact/new/{workerId}`.
 */
export const ContactAddedEvent = Type.Composite([EventEnvelope, Type.Object({ contactId: Uuid, workerId: WorkerId })], {
  description: 'A worker added the organisation as a contact; its integrator gets Worker Added Contact.',
});
export type ContactAddedEvent = Static<typeof ContactAddedEvent>;

/**
 * `invites.created`: a hirer invited a person (usually picked from contact suggestions) to join as a
 * worker. `organisationId` is the inviting organisation; notification-service e-mails the invitation.
 */
export const InviteCreatedEvent = Type.Composite(
  [
    EventEnvelope,
    Type.Object({
      inviteId: Uuid,
      invitedByUserId: Uuid,
      invitedByName: EventText(),
      organisationName: EventText(),
      name: EventText(),
      emailAddress: EventText({ minLength: 3 }),
      /** The integrator whose suggestion this was, if any. */
      suggestedByOrganisationId: Type.Union([Uuid, Type.Null()]),
    }),
  ],
  { description: 'A hirer invited a person to join as a worker; the invitation is e-mailed.' },
);
export type InviteCreatedEvent = Static<typeof InviteCreatedEvent>;

/**
 * `webhooks.endpoint.disabled`: the dispatcher stopped calling an organisation's service (410, or
 * failing for too long). notification-service tells the organisation's admins. Saving the base URL
 * again on the company profile (which re-runs /test and /test/auth) enables it again.
 */
export const WebhookEndpointDisabledEvent = Type.Composite([EventEnvelope, Type.Object({ baseUrl: EventText(), reason: EventText() })], {
  description: 'The dispatcher stopped calling an organisation’s service; its admins are told by e-mail.',
});
export type WebhookEndpointDisabledEvent = Static<typeof WebhookEndpointDisabledEvent>;

/**
 * `sign-in.requested`: someone asked contact-directory for sign-in links (`POST /sign-in/links`). Its
 * own consumer does the work after the answer, so the answer is the same, and as quick, whether the
 * address has accounts or not. The one event no organisation owns (an address may have accounts at
 * several organisations, or none), so it has no `organisationId`.
 */
export const SignInRequestedEvent = Type.Object(
  {
    eventId: Uuid,
    occurredAt: UtcTimestamp,
    audience: Type.Union([Type.Literal('portal'), Type.Literal('worker')]),
    emailAddress: EventText({ minLength: 3, maxLength: 320 }),
  },
  { description: 'Someone asked for sign-in links for an address; contact-directory e-mails them, if it has accounts, after answering.' },
);
export type SignInRequestedEvent = Static<typeof SignInRequestedEvent>;
