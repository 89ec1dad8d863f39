import {
  type OfferTimeSlot,
  OfferLimits,
  RecipientResponse,
  type RecipientResponse as Response,
} from '@availability/contracts';
import { type FieldErrors, ProblemException } from '@availability/service-core';

/** The state of an offer that decides which moves are legal. */
export interface OfferState {
  widthdrawn: boolean;
  complete: boolean;
  /** The offer's last time slot has ended. */
  ended: boolean;
}

/** Each slot starts before it ends, and no slot starts in the past. Returns field errors (empty when fine). */
export function checkTimeSlots(events: OfferTimeSlot[], now: Date): FieldErrors {
  const errors: FieldErrors = {};
  events.forEach((slot, index) => {
    const start = Date.parse(slot.start);
    const end = Date.parse(slot.end);
    if (!(start < end)) (errors[`events[${index}].end`] ??= []).push('end must be after start');
    if (start <= now.getTime()) (errors[`events[${index}].start`] ??= []).push('start must be in the future');
  });
  return errors;
}

/** When the offer's work is over: the end of its latest slot. */
export function lastEnd(events: OfferTimeSlot[]): Date {
  return new Date(Math.max(...events.map((slot) => Date.parse(slot.end))));
}

/** Slots as stored and returned: normalised to `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function normaliseSlots(events: OfferTimeSlot[]): OfferTimeSlot[] {
  return events.map((slot) => ({ start: new Date(slot.start).toISOString(), end: new Date(slot.end).toISOString() }));
}

/** At most this many bad elements of a completion list are named one by one. */
const LISTED_BAD_ELEMENTS = 20;

/** Body of complete-offer (spec 2.5): a JSON array of distinct worker ids. */
export function parseAssignedWorkers(body: unknown): string[] {
  if (!Array.isArray(body)) {
    throw ProblemException.validation({ body: ['must be a JSON array of worker ids'] }, 'The body must be a JSON array of worker ids.');
  }
  if (body.length > OfferLimits.workers) {
    throw ProblemException.validation({ body: [`must name at most ${OfferLimits.workers} workers`] });
  }
  const errors: FieldErrors = {};
  let listed = 0;
  const seen = new Set<string>();
  body.forEach((id, index) => {
    let problem: string | undefined;
    if (typeof id !== 'string' || id.length === 0 || id.length > OfferLimits.idLength) {
      problem = `must be a worker id (a non-empty string of at most ${OfferLimits.idLength} characters)`;
    } else if (seen.has(id)) {
      problem = `worker ${id} is named more than once`;
    } else {
      seen.add(id);
    }
    // Each bad element is named, up to a point: a list of 10,000 numbers gets 20, not 10,000.
    if (problem && ++listed <= LISTED_BAD_ELEMENTS) errors[`[${index}]`] = [problem];
  });
  if (listed > LISTED_BAD_ELEMENTS) errors.body = [`and ${listed - LISTED_BAD_ELEMENTS} more bad elements`];
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
  return body as string[];
}

function assertOpenForSender(state: OfferState, action: string): void {
  if (state.widthdrawn) throw ProblemException.conflict('offer-withdrawn', `The offer has been withdrawn and cannot be ${action}.`);
  if (state.complete) throw ProblemException.conflict('offer-complete', `The offer is already complete and cannot be ${action}.`);
}

/**
 * Completion names the assigned workers; each must be a recipient who applied. Everyone else is told
 * they were unsuccessful.
 */
export function planCompletion(
  state: OfferState,
  recipients: Array<{ workerId: string; response: Response | string }>,
  assigned: string[],
): { successful: string[]; unsuccessful: string[] } {
  assertOpenForSender(state, 'completed');
  const responses = new Map(recipients.map((r) => [r.workerId, r.response]));
  const errors: FieldErrors = {};
  assigned.forEach((workerId, index) => {
    const response = responses.get(workerId);
    if (response === undefined) errors[`[${index}]`] = [`worker ${workerId} is not a recipient of this offer`];
    else if (response !== RecipientResponse.Applied) errors[`[${index}]`] = [`worker ${workerId} has not applied (response: ${response})`];
  });
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors, 'Only recipients who applied can be assigned.');
  const chosen = new Set(assigned);
  return {
    successful: assigned,
    unsuccessful: recipients.map((r) => r.workerId).filter((id) => !chosen.has(id)),
  };
}

/** Withdrawing twice is fine (nothing happens the second time); a completed offer cannot be withdrawn. */
export function planWithdrawal(state: OfferState): 'withdraw' | 'already-withdrawn' {
  if (state.widthdrawn) return 'already-withdrawn';
  assertOpenForSender(state, 'withdrawn');
  return 'withdraw';
}

/** A worker may answer (and change the answer) while the offer is open. */
export function assertWorkerCanAnswer(state: OfferState): void {
  if (state.widthdrawn) throw ProblemException.conflict('offer-withdrawn', 'The offer has been withdrawn.');
  if (state.complete) throw ProblemException.conflict('offer-complete', 'The offer is already complete.');
  if (state.ended) throw ProblemException.conflict('offer-ended', 'The work of this offer has already ended.');
}
