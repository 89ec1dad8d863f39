import { EVENT_PARTIES, EVENT_SCHEMAS } from './event-schemas.js';
import { EventSubject } from './event-subjects.js';

/** `offers.response.recorded` → `offersResponseRecorded`: ids for the document's channels and messages. */
function idOf(subject: string): string {
  return subject.replace(/[.-](\w)/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The platform's event stream as an AsyncAPI 3 document, built from the one definition of each
 * event (event-schemas.ts): its subject, payload schema, producer and consumers. Written to
 * docs/asyncapi.json by `npm run docs:contracts`; a test keeps the file current.
 */
export function asyncApiDocument(): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const subject of Object.values(EventSubject)) {
    const id = idOf(subject);
    const schema = JSON.parse(JSON.stringify(EVENT_SCHEMAS[subject])) as { description?: string };
    messages[id] = {
      name: subject,
      title: subject,
      summary: schema.description,
      contentType: 'application/json',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': { type: 'string', description: 'The eventId: JetStream stores an event published twice once.' },
          traceparent: {
            type: 'string',
            description: 'W3C Trace Context of the work that caused the event (the outbox relay\'s publish, when tracing is on): its handlers continue that trace.',
          },
          'x-request-id': { type: 'string', description: 'The request id of the request that caused the event, when there was one: the caller\'s own x-request-id, or else the trace id.' },
          'Event-Publication': {
            type: 'string',
            enum: ['first'],
            description:
              'Set when the outbox relay publishes the event as the transaction that wrote it commits: no earlier publication of it exists, so a consumer seeing it for the first time (delivery count 1) need not look for work done for an earlier copy. Absent when the relay\'s poll publishes it (possibly again, after a lost mark).',
          },
        },
        required: ['Nats-Msg-Id'],
      },
      payload: schema,
    };
    channels[id] = {
      address: subject,
      description: `Stream PLATFORM (EVENTS_STREAM); a deployment may prefix the subject (NATS_SUBJECT_PREFIX). ${schema.description ?? ''}`.trim(),
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
    };
    const { producer, consumers } = EVENT_PARTIES[subject];
    operations[`${idOf(producer)}Sends${id[0].toUpperCase()}${id.slice(1)}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `${producer} writes it to its outbox in the transaction of the change it announces; the outbox relay publishes it.`,
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
    for (const consumer of consumers) {
      operations[`${idOf(consumer)}Receives${id[0].toUpperCase()}${id.slice(1)}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${id}` },
        summary: `${consumer}'s durable consumer; an event that does not match the schema is parked with the reason, never dropped.`,
        messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Availability Platform events',
      version: '1.0.0',
      description:
        'The events the platform\'s services exchange on NATS JetStream. Each is written to its producer\'s outbox in the same transaction as the change it announces and published at least once; consumers de-duplicate by eventId. Events are open: a consumer ignores fields it does not know.',
    },
    defaultContentType: 'application/json',
    servers: {
      bus: { host: 'nats:4222', protocol: 'nats', description: 'Each service connects with its own nkey and may publish and subscribe only its own subjects.' },
    },
    channels,
    operations,
    components: { messages },
  };
}
