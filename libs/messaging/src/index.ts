export * from './events/event-stream.js';
export * from './events/event-stream.module.js';
export * from './nats/nats.module.js';
export * from './nats/nats.tokens.js';
export * from './outbox/outbox-relay.js';
export * from './outbox/outbox.module.js';
export * from './outbox/outbox.js';
export * from './nats/request-reply.js';
