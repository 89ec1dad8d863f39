interface Slot {
  inFlight: number;
  waiters: Array<(granted: boolean) => void>;
  /** Last time a call of this endpoint finished (or the first one started). */
  lastProgressAt: number;
  /** The endpoint's pace: calls finished in the current window and the one before. */
  finished: number;
  windowStart: number;
  previousFinished: number;
  previousSpan: number;
}

/** Span of each of the two windows the pace is measured over. */
const PACE_WINDOW_MS = 500;
/** Below this much time measured, the pace is not known yet: the line may be as long as `maxWaiters`. */
const MIN_PACE_SPAN_MS = 50;

export interface EndpointLimiterOptions {
  /** Calls in flight per endpoint. */
  perKey: number;
  /** A saturated endpoint with no call finishing for this long is stalled: callers are turned away at once. */
  stallMs: number;
  /** Callers allowed to wait in line per endpoint, at most; more are turned away at once. */
  maxWaiters: number;
  /**
   * The line is as long as the endpoint, at its recent pace, works through in this time (at least
   * `perKey`, at most `maxWaiters`): a fast endpoint's backlog waits here instead of being put back
   * through Redis, while a slow one cannot take the worker slots other endpoints need. Until its pace
   * is known (its first 50 ms busy) an endpoint is taken to be fast: a put-back costs a second or two.
   */
  maxLineWaitMs: number;
}

/**
 * At most `perKey` calls in flight per endpoint in this process, so a slow integrator holds a few
 * worker slots and never all of them. A caller finding the endpoint busy waits briefly in line, if the
 * line is shorter than the endpoint's pace allows (a healthy endpoint frees a slot within milliseconds,
 * so its backlog flows without churn); if the endpoint is or becomes stalled, or no slot comes within
 * `maxWaitMs`, it is told no and puts its job back.
 */
export class EndpointLimiter {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly options: EndpointLimiterOptions,
    private readonly now: () => number = Date.now,
  ) {}

  acquire(key: string, maxWaitMs: number): Promise<boolean> {
    let slot = this.slots.get(key);
    if (!slot) {
      const now = this.now();
      slot = { inFlight: 0, waiters: [], lastProgressAt: now, finished: 0, windowStart: now, previousFinished: 0, previousSpan: 0 };
      this.slots.set(key, slot);
    }
    if (slot.inFlight < this.options.perKey) {
      if (slot.inFlight === 0) slot.lastProgressAt = this.now();
      slot.inFlight += 1;
      return Promise.resolve(true);
    }
    if (this.now() - slot.lastProgressAt > this.options.stallMs || maxWaitMs <= 0 || slot.waiters.length >= this.lineLength(slot)) {
      return Promise.resolve(false);
    }
    const waiting = slot;
    const deadline = this.now() + maxWaitMs;
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      // Wakes when the wait is over or when the endpoint would count as stalled, whichever comes first:
      // callers waiting for an endpoint that stopped answering give their worker slot back at once.
      const check = () => {
        const now = this.now();
        if (now >= deadline || now - waiting.lastProgressAt > this.options.stallMs) {
          const index = waiting.waiters.indexOf(waiter);
          if (index >= 0) waiting.waiters.splice(index, 1);
          resolve(false);
          return;
        }
        timer = setTimeout(check, Math.min(deadline, waiting.lastProgressAt + this.options.stallMs + 1) - now);
      };
      waiting.waiters.push(waiter);
      check();
    });
  }

  release(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    const now = this.now();
    slot.lastProgressAt = now;
    slot.finished += 1;
    if (now - slot.windowStart >= PACE_WINDOW_MS) {
      slot.previousFinished = slot.finished;
      slot.previousSpan = now - slot.windowStart;
      slot.finished = 0;
      slot.windowStart = now;
    }
    const next = slot.waiters.shift();
    if (next) {
      next(true); // the slot passes straight to the next in line
      return;
    }
    slot.inFlight -= 1;
    if (slot.inFlight <= 0) this.slots.delete(key);
  }

  /** Callers that may wait in line now: what the endpoint finishes in `maxLineWaitMs` at its recent pace. */
  private lineLength(slot: Slot): number {
    const span = slot.previousSpan + (this.now() - slot.windowStart);
    if (span < MIN_PACE_SPAN_MS) return this.options.maxWaiters;
    const byPace = Math.floor(((slot.previousFinished + slot.finished) / span) * this.options.maxLineWaitMs);
    return Math.min(this.options.maxWaiters, Math.max(this.options.perKey, byPace));
  }

  active(key: string): number {
    return this.slots.get(key)?.inFlight ?? 0;
  }

  stalled(key: string): boolean {
    const slot = this.slots.get(key);
    return !!slot && slot.inFlight >= this.options.perKey && this.now() - slot.lastProgressAt > this.options.stallMs;
  }
}
