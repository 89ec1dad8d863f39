/**
 * JetStream subjects of the platform's events (stream `PLATFORM`, DESIGN 2). A deployment may prefix
 * them all (NATS_SUBJECT_PREFIX); use `prefixedSubject` when publishing or filtering.
 */
export const EventSubject = {
  OfferCreated: 'offers.created',
  OfferResponseRecorded: 'offers.response.recorded',
  OfferCompleted: 'offers.completed',
  OfferWithdrawn: 'offers.withdrawn',
  ContactAdded: 'contacts.added',
  InviteCreated: 'invites.created',
  WebhookEndpointDisabled: 'webhooks.endpoint.disabled',
  SignInRequested: 'sign-in.requested',
} as const;

export type EventSubject = (typeof EventSubject)[keyof typeof EventSubject];

/** Subject families the stream captures. */
export const STREAM_SUBJECT_ROOTS = ['offers', 'contacts', 'invites', 'webhooks', 'sign-in'] as const;

export function prefixedSubject(prefix: string, subject: string): string {
  return `${prefix}${subject}`;
}
