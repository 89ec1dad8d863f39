/**
 * A task run every `everyMs` while the process lives (a sweep of the database, say): a run still going
 * when the next is due is not started twice, a failed run is reported and the next one goes ahead,
 * and `stop` waits for the run in progress. The timer keeps no process alive.
 */
export class RepeatingTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly onError: (error: Error) => void,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => void this.runOnce(), everyMs).unref();
  }

  /** Runs the task now, or joins the run in progress. */
  runOnce(): Promise<void> {
    this.running ??= this.run()
      .catch((error: Error) => this.onError(error))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
