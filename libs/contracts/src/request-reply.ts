/**
 * The wire form of every request/reply answer between services: the handler's result, or the reason
 * it failed (never a stack trace). Bodies are JSON.
 */
export type RequestReplyAnswer<T> = { ok: true; result: T } | { ok: false; error: string };

export function encodeReply<T>(result: T): string {
  return JSON.stringify({ ok: true, result } satisfies RequestReplyAnswer<T>);
}

export function encodeFailure(error: string): string {
  return JSON.stringify({ ok: false, error } satisfies RequestReplyAnswer<never>);
}
