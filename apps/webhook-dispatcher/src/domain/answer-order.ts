/** An answer's delivery as the order rule reads it. */
export interface LoggedAnswer {
  /** The answer's count among its worker's answers to its offer; null from a producer that numbered none. */
  sequence: number | null;
  /** 0 for the event's own attempts; one more for each explicit redelivery. */
  series: number;
}

export type AnswerVerdict = 'send' | 'supersede';

/**
 * The platform's side of answers in order: an answer is not sent once the delivery log holds a newer
 * one from the same worker about the same offer to the same organisation; it is finished as
 * `superseded` instead. Supersede rather than a line per recipient: a line would let one failing answer
 * hold back the later ones, and an integrator needs the current answer, soon. Two calls can still be in
 * flight at once (the newer logged after the older was claimed): the body's sequence lets the
 * integrator drop the older. An answer without sequence predates the numbering and is never
 * superseded; an explicit redelivery was asked for and is sent (marked `webhook-redelivery`).
 *
 * DeliveriesRepository.claimAttempt makes the same decision inside its claim (ANSWER_SUPERSEDED).
 */
export class AnswerOrder {
  /** What an attempt of `answer` does, given the highest sequence the log holds for its recipient. */
  verdict(answer: LoggedAnswer, newestLogged: number | null): AnswerVerdict {
    if (answer.sequence === null || answer.series > 0) return 'send';
    return newestLogged !== null && newestLogged > answer.sequence ? 'supersede' : 'send';
  }
}
