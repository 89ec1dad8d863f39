/** The fields of a Worker Offer Response the order rule reads. */
export interface NumberedAnswer {
  offerId: string;
  workerId: string;
  sequence?: number;
}

/** The answer's recipient and sequence, from a body as received; undefined when it is not one. */
export function numberedAnswerOf(body: string): NumberedAnswer | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<Record<keyof NumberedAnswer, unknown>>;
    if (typeof parsed?.offerId !== 'string' || typeof parsed.workerId !== 'string') return undefined;
    const sequence = Number.isSafeInteger(parsed.sequence) ? (parsed.sequence as number) : undefined;
    return { offerId: parsed.offerId, workerId: parsed.workerId, ...(sequence === undefined ? {} : { sequence }) };
  } catch {
    return undefined;
  }
}

/**
 * The integrator guide's rule for answers in order: calls may arrive out of order (a retry of a first
 * answer after the second), so keep, per (offer, worker), the highest `sequence` applied and drop a
 * call with a lower or equal one: it is stale or a repeat (acknowledged, not applied). An answer
 * without a sequence predates the numbering: newest only while none numbered is held.
 */
export class AnswerOrder {
  private readonly latest = new Map<string, number>();

  /** True when `answer` is the newest for its recipient (apply it, and it is now held); false to drop it. */
  apply(answer: NumberedAnswer): boolean {
    const key = `${answer.offerId} ${answer.workerId}`;
    const held = this.latest.get(key);
    if (answer.sequence === undefined) return held === undefined;
    if (held !== undefined && answer.sequence <= held) return false;
    this.latest.set(key, answer.sequence);
    return true;
  }

  clear(): void {
    this.latest.clear();
  }
}
