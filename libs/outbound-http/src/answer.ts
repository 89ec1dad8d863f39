/**
 * How long the platform waits for an integrator's answer to one webhook call (connect, headers and
 * body): the dispatcher's default WEBHOOK_TIMEOUT_MS, and the conformance kit's default deadline.
 */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** The answer to one call: an HTTP status, or no answer (timeout, connection closed…, an OutboundFailureKind). */
export type ProbeAnswer = { status: number } | { failed: string };

/** Whether an answer accepted the call: any 2xx. A refusal of any kind, or no answer, is not acceptance. */
export function accepted(answer: ProbeAnswer): boolean {
  return 'status' in answer && answer.status >= 200 && answer.status < 300;
}
