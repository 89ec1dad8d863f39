/** Injection tokens of the NATS module, in their own file so any provider can import them without a cycle. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const JETSTREAM = Symbol('JETSTREAM');
export const JETSTREAM_MANAGER = Symbol('JETSTREAM_MANAGER');
export const NATS_SUBJECT_PREFIX = Symbol('NATS_SUBJECT_PREFIX');
