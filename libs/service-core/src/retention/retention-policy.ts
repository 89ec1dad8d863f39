/** Milliseconds in a day and in an hour, the units retention settings are given in. */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/**
 * How long the rows of one class are kept, and so which of them are past it, on an injected clock. A
 * row is past the policy once it is older than `keepMs`: one exactly `keepMs` old is still kept.
 * The pruner hands `cutoff()` to its statement (`time < cutoff`), so the database draws the same line.
 */
export class RetentionPolicy {
  constructor(
    readonly keepMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(keepMs) || keepMs <= 0) throw new Error(`a retention period must be positive (got ${keepMs} ms)`);
  }

  /** Rows whose time is before this are past the policy. */
  cutoff(): Date {
    return new Date(this.now() - this.keepMs);
  }

  isPast(time: Date): boolean {
    return time.getTime() < this.cutoff().getTime();
  }
}

/**
 * How much one run of the pruner may do for one class: batches follow each other while the last one
 * was full (there is likely more) and the run has not used its time; the rest waits for the next run,
 * so a backlog (a first run over a year of history) is worked off in slices that leave the database
 * to the traffic in between.
 */
export class PruneBudget {
  private readonly startedAt: number;

  constructor(
    private readonly runMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /** Whether another batch may follow one that deleted `deleted` rows of at most `batchRows`. */
  another(deleted: number, batchRows: number): boolean {
    return deleted >= batchRows && this.now() - this.startedAt < this.runMs;
  }
}
