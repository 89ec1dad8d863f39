/**
 * Groups concurrent single-item calls into one batch call (one SQL statement, one Redis round trip):
 * the first item schedules a flush on the next tick (or `lingerMs` later), a full batch flushes at
 * once. Under light load a batch is one item and adds no waiting; under heavy load round trips fall
 * by the batch size. A linger is for writes nobody waits on: at a steady trickle it lets the items
 * of that many milliseconds share one round trip instead of each waking the server.
 */
export class MicroBatcher<I, O> {
  private pending: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;
  private timer?: NodeJS.Timeout;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly flushBatch: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 200,
    private readonly lingerMs = 0,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        if (this.lingerMs > 0) this.timer = setTimeout(() => this.flush(), this.lingerMs);
        else setImmediate(() => this.flush());
      }
    });
  }

  /** Waits for every batch started so far (graceful shutdown). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.running);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const run = this.flushBatch(batch.map((entry) => entry.item)).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index])),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
    const tracked = run.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
