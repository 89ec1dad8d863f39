import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { TRACE_ID_HEADER } from '@availability/service-core';

/** NATS headers carrying a trace id (`x-request-id`), as the outbox relay and request/reply send it. */
export function traceHeaders(traceId: string): MsgHdrs {
  const carried = headers();
  carried.set(TRACE_ID_HEADER, traceId);
  return carried;
}
