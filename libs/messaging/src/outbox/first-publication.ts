import type { MsgHdrs } from '@nats-io/transport-node';

/**
 * Set by the outbox relay on an event it publishes as the transaction that wrote it commits: nothing
 * published that event before. Without it (the relay's poll, which may repeat an earlier publication
 * whose mark was lost, or any other publisher) a consumer must assume the event may have come before,
 * under another stream message, once JetStream's duplicate window has passed.
 */
export const FIRST_PUBLICATION_HEADER = 'Event-Publication';
export const FIRST_PUBLICATION = 'first';

/** True when the message is an event's first publication (FIRST_PUBLICATION_HEADER). */
export function isFirstPublication(message: { headers?: MsgHdrs }): boolean {
  return message.headers?.get(FIRST_PUBLICATION_HEADER) === FIRST_PUBLICATION;
}
