import type { EventEnvelope } from './event-envelope.js';

/**
 * `contacts.added`: a worker added a contact at an organisation, to share availability with it.
 * `organisationId` is that organisation: its integrator gets `GET {base}/contact/new/{workerId}`.
 */
export interface ContactAddedEvent extends EventEnvelope {
  contactId: string;
  workerId: string;
}

/**
 * `invites.created`: a hirer invited a person (usually picked from contact suggestions) to join as a
 * worker. `organisationId` is the inviting organisation; notification-service e-mails the invitation.
 */
export interface InviteCreatedEvent extends EventEnvelope {
  inviteId: string;
  invitedByUserId: string;
  invitedByName: string;
  organisationName: string;
  name: string;
  emailAddress: string;
  /** The integrator whose suggestion this was, if any. */
  suggestedByOrganisationId: string | null;
}

/**
 * `webhooks.endpoint.disabled`: the dispatcher stopped calling an organisation's service (410, or
 * failing for too long). notification-service tells the organisation's admins. Saving the base URL
 * again on the company profile (which re-runs /test and /test/auth) enables it again.
 */
export interface WebhookEndpointDisabledEvent extends EventEnvelope {
  baseUrl: string;
  reason: string;
}
