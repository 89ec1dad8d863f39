import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The trace id of the work in hand: an HTTP request's id (the caller's `x-request-id`, or one we
 * made), carried into the outbox, onto NATS messages as the `x-request-id` header and into BullMQ job
 * data, so one id follows a request through every service that handles what it caused. Every log
 * line written while it is set carries it as `traceId`.
 */
const storage = new AsyncLocalStorage<string>();

/** The header that carries the trace id, on HTTP requests and responses and on NATS messages. */
export const TRACE_ID_HEADER = 'x-request-id';

const SANE_TRACE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The given id if it is safe to log and forward, else undefined. */
export function saneTraceId(value: unknown): string | undefined {
  return typeof value === 'string' && SANE_TRACE_ID.test(value) ? value : undefined;
}

export function newTraceId(): string {
  return randomUUID();
}

export function currentTraceId(): string | undefined {
  return storage.getStore();
}

/** Runs `fn` with the given trace id (a fresh one when it is missing or not sane). */
export function runWithTraceId<T>(traceId: unknown, fn: () => T): T {
  return storage.run(saneTraceId(traceId) ?? newTraceId(), fn);
}
