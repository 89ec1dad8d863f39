import type { NatsConnection } from '@nats-io/transport-node';
import { encodeReply } from '@availability/contracts';

/**
 * Answers a request/reply subject in a test, speaking RequestReply's wire format, for a peer
 * service a suite does not start (e.g. the directory's answer to one question).
 */
export async function answerRequests<TRequest, TResult>(
  connection: NatsConnection,
  subject: string,
  handler: (request: TRequest) => TResult,
): Promise<void> {
  connection.subscribe(subject, {
    queue: 'stand-in',
    callback: (error, message) => {
      if (!error) message.respond(encodeReply(handler(message.json<TRequest>())));
    },
  });
  await connection.flush();
}
