interface Slot {
  inFlight: number;
  waiters: Array<(granted: boolean) => void>;
  /** Last time a call of this endpoint finished (or the first one started). */
  lastProgressAt: number;
  /** Moving average of how long the endpoint's calls take: with `perKey` in flight, how fast its line moves. */
  callMs?: number;
}

export interface EndpointLimiterOptions {
  /** Calls in flight per endpoint. */
  perKey: number;
  /** A saturated endpoint with no call finishing for this long is stalled: callers are turned away at once. */
  stallMs: number;
  /** Callers allowed to wait in line per endpoint while it is not known how fast the line moves. */
  maxWaiters: number;
  /**
   * Callers allowed to wait in line per endpoint whose line is known to move fast enough for each of
   * them to get a slot within its wait (default `maxWaiters`): a healthy endpoint's backlog waits here
   * instead of being put back and fetched again, a slow endpoint's line stays as short as its pace allows.
   */
  maxWaitersWhenFlowing?: number;
}

/**
 * At most `perKey` calls in flight per endpoint in this process, so a slow integrator holds a few
 * worker slots and never all of them. A caller finding the endpoint busy waits briefly in line
 * (a healthy endpoint frees a slot within milliseconds, so its backlog flows without churn). The line
 * is as long as the endpoint's pace lets everyone in it get a slot within `maxWaitMs`: a caller who
 * would not, or who finds the endpoint stalled, is told no at once and puts its job back; a stalled
 * endpoint also turns away those already waiting.
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
      slot = { inFlight: 0, waiters: [], lastProgressAt: this.now() };
      this.slots.set(key, slot);
    }
    if (slot.inFlight < this.options.perKey) {
      if (slot.inFlight === 0) slot.lastProgressAt = this.now();
      slot.inFlight += 1;
      return Promise.resolve(true);
    }
    if (this.now() - slot.lastProgressAt > this.options.stallMs) {
      // Stalled: nobody in line will get a slot soon; let them all put their jobs back now.
      for (const waiter of slot.waiters.splice(0)) waiter(false);
      return Promise.resolve(false);
    }
    if (maxWaitMs <= 0 || !this.admits(slot, maxWaitMs)) return Promise.resolve(false);
    const waiting = slot;
    return new Promise<boolean>((resolve) => {
      const waiter = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      const timer = setTimeout(() => {
        const index = waiting.waiters.indexOf(waiter);
        if (index >= 0) waiting.waiters.splice(index, 1);
        resolve(false);
      }, maxWaitMs);
      waiting.waiters.push(waiter);
    });
  }

  /** Gives a slot back; `callMs`, how long the call took, paces the line. */
  release(key: string, callMs?: number): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    if (callMs !== undefined) slot.callMs = slot.callMs === undefined ? callMs : slot.callMs * 0.9 + callMs * 0.1;
    slot.lastProgressAt = this.now();
    const next = slot.waiters.shift();
    if (next) {
      next(true); // the slot passes straight to the next in line
      return;
    }
    slot.inFlight -= 1;
    if (slot.inFlight <= 0) this.slots.delete(key);
  }

  /** Whether one more caller may wait in line: only if the line's pace gives it a slot within its wait. */
  private admits(slot: Slot, maxWaitMs: number): boolean {
    const position = slot.waiters.length + 1;
    if (slot.callMs === undefined) return position <= this.options.maxWaiters;
    const cap = Math.max(this.options.maxWaiters, this.options.maxWaitersWhenFlowing ?? 0);
    // A slot frees every callMs / perKey on average. Half the wait as margin: the pace may slow down.
    return position <= cap && (position * slot.callMs) / this.options.perKey <= maxWaitMs / 2;
  }

  active(key: string): number {
    return this.slots.get(key)?.inFlight ?? 0;
  }

  stalled(key: string): boolean {
    const slot = this.slots.get(key);
    return !!slot && slot.inFlight >= this.options.perKey && this.now() - slot.lastProgressAt > this.options.stallMs;
  }
}
