import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { type CarriedTrace, REQUEST_ID_HEADER, TRACEPARENT_HEADER } from '@availability/service-core';

/**
 * NATS headers carrying a trace: `traceparent` (W3C) and the request id as `x-request-id`, as the
 * outbox relay and request/reply send them; undefined when there is nothing to carry.
 */
export function traceHeaders(trace: CarriedTrace): MsgHdrs | undefined {
  if (!trace.traceparent && !trace.requestId) return undefined;
  const carried = headers();
  if (trace.traceparent) carried.set(TRACEPARENT_HEADER, trace.traceparent);
  if (trace.requestId) carried.set(REQUEST_ID_HEADER, trace.requestId);
  return carried;
}

/** The trace a NATS message carries (see traceHeaders). */
export function carriedTrace(message: { headers?: MsgHdrs }): CarriedTrace {
  const carried = message.headers;
  if (!carried) return {};
  // MsgHdrs answers '' for a header it does not have.
  return { traceparent: carried.get(TRACEPARENT_HEADER) || undefined, requestId: carried.get(REQUEST_ID_HEADER) || undefined };
}
