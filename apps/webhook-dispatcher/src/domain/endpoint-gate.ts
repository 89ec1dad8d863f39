import type { Verdict } from './classify.js';

/**
 * What the gate tells a delivery about to call its endpoint:
 * - `go`: call now, and `report` the verdict when the call is over (the slot is held until then);
 * - `wait`: the endpoint is busy (its calls in flight at the limit, none freed in time, or stalled):
 *   ask again in `ms`; no attempt is used;
 * - `hold`: the endpoint's circuit is open: the delivery waits, held, for the endpoint's trial call,
 *   due in `trialInMs`;
 * - `dead`: the endpoint is disabled, for `reason`.
 */
export type Admission = { kind: 'go' } | { kind: 'wait'; ms: number } | { kind: 'hold'; trialInMs: number } | { kind: 'dead'; reason: string };

/** How an admitted call went, as `report` takes it. */
export interface CallReport {
  verdict: Verdict;
  /** How long the call took. */
  durationMs: number;
  /** The endpoint's base URL, and what was called (named in the organisation's notice when disabled). */
  baseUrl: string;
  url: string;
}

/** What a report changed beyond this process's memory, for the caller to act on. */
export interface GateReport {
  /** The endpoint's circuit was open and this call closed it: what was held for it may go. */
  closed: boolean;
  /** The endpoint was disabled by this report, for this reason (the delivery ends dead). */
  disabled: string | null;
}

/** An endpoint's health as every process shares it (the failure streak and the disabled flag). */
export interface EndpointHealth {
  failingSince: number | null;
  disabledReason: string | null;
}

/**
 * Where the shared part of an endpoint's state is kept: PostgreSQL in the service (with the event that
 * tells the organisation it was disabled), memory in unit tests.
 */
export interface EndpointHealthStore {
  read(endpoint: string): Promise<EndpointHealth>;
  /** Notes the start of a failure streak (kept if one is running); returns when it started. */
  markFailing(endpoint: string, baseUrl: string): Promise<number>;
  clearFailing(endpoint: string): Promise<void>;
  disable(endpoint: string, baseUrl: string, reason: string): Promise<void>;
  enable(endpoint: string): Promise<void>;
}

export interface EndpointGateOptions {
  /** Calls in flight per endpoint in this process. */
  inFlightLimit: number;
  /** Callers waiting in line per endpoint, at most. */
  maxWaiting: number;
  /**
   * How long a caller may wait in line for a slot; the line is as long as the endpoint works through in
   * this time at its recent call duration (at least `inFlightLimit`).
   */
  lineWaitMs: number;
  /** A saturated endpoint with no call finishing for this long is stalled: callers are turned away at once. */
  stallMs: number;
  /** How long a caller turned away waits before asking again (plus jitter from the caller). */
  busyRetryMs: number;
  /**
   * Calls in flight that slow endpoints may hold together, beyond one each: an endpoint is slow unless
   * one of its calls finished within `stallMs` of starting, less than `stallMs` ago. Less than the
   * process's slots, so endpoints that hang (or answer only near the timeout) cannot take them all.
   */
  slowShare: number;
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit holds calls back before one trial call. */
  cooldownMs: number;
  /** An endpoint failing without a single success for this long is disabled. */
  disableAfterMs: number;
  /** How long this process trusts its copy of the shared health (another process may disable it). */
  healthTtlMs: number;
}

/** Everything this process knows about one endpoint. */
interface Endpoint {
  inFlight: number;
  waiting: Array<() => void>;
  /** Last time a call finished (or the first of a busy spell started): a saturated endpoint without progress is stalled. */
  lastProgressAt: number;
  /** Moving mean of its calls' durations; null until one has finished. */
  meanCallMs: number | null;
  /** When a call last finished within `stallMs` of starting (null: never): the endpoint is prompt until `stallMs` after. */
  promptAt: number | null;
  /** Consecutive failures counting towards the circuit, and until when it is open. */
  failures: number;
  openUntil: number;
  /** Half-open: a trial call is in flight until this time; everyone else is held. */
  trialUntil: number;
  health: EndpointHealth | null;
  healthReadAt: number;
}

/** Weight of the newest call in the moving mean of call durations. */
const CALL_MS_WEIGHT = 0.1;

/**
 * The one owner of an endpoint's state in the dispatcher: its in-flight limit and waiting line, its
 * circuit breaker (per process), and its shared health (failing since, disabled), read through the
 * store and cached briefly. Two calls: `admit` before a call, `report` after it.
 *
 * States: closed (calls go, up to the in-flight limit; a caller may wait in line briefly while the
 * endpoint makes progress) → open after `failureThreshold` consecutive failures (everything is held
 * for `cooldownMs`) → half-open (one trial call goes; success closes, failure opens again). Failing
 * without a success for `disableAfterMs` disables the endpoint: from then on everything is dead until
 * the organisation re-saves its endpoint (`reset`).
 */
export class EndpointGate {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly reading = new Map<string, Promise<EndpointHealth>>();

  constructor(
    private readonly options: EndpointGateOptions,
    private readonly store: EndpointHealthStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * May a delivery call the endpoint now? A busy endpoint's caller may wait in line for a slot, at most
   * `lineWaitMs`, unless `mayWait` is false.
   */
  async admit(key: string, mayWait = true): Promise<Admission> {
    const endpoint = this.endpoint(key);
    const health = await this.health(key, endpoint);
    if (health.disabledReason !== null) return { kind: 'dead', reason: health.disabledReason };
    const held = this.heldForMs(endpoint);
    if (held > 0) return { kind: 'hold', trialInMs: held };
    if (endpoint.inFlight < this.options.inFlightLimit) {
      // Its share taken, a slow endpoint's caller is turned away at once: waiting in line would hold a slot too.
      if (this.overSlowShare(endpoint)) return { kind: 'wait', ms: this.options.busyRetryMs };
      return this.go(endpoint);
    }
    if (!(await this.waitInLine(endpoint, mayWait ? this.options.lineWaitMs : 0))) return { kind: 'wait', ms: this.options.busyRetryMs };
    // The circuit may have opened while this caller waited: the slot it was handed goes on.
    const heldNow = this.heldForMs(endpoint);
    if (heldNow > 0) {
      this.release(endpoint);
      return { kind: 'hold', trialInMs: heldNow };
    }
    return this.go(endpoint, true);
  }

  /**
   * The call admitted by `admit` is over: its slot goes to the next in line at once, then the verdict
   * moves the circuit and the shared health on.
   */
  async report(key: string, { verdict, durationMs, baseUrl, url }: CallReport): Promise<GateReport> {
    const endpoint = this.endpoint(key);
    endpoint.meanCallMs = endpoint.meanCallMs === null ? durationMs : endpoint.meanCallMs + CALL_MS_WEIGHT * (durationMs - endpoint.meanCallMs);
    if (durationMs <= this.options.stallMs) endpoint.promptAt = this.now();
    this.release(endpoint);
    const wasOpen = endpoint.failures >= this.options.failureThreshold;
    if (verdict.kind === 'success') {
      endpoint.failures = 0;
      endpoint.openUntil = 0;
      endpoint.trialUntil = 0;
      const health = await this.health(key, endpoint);
      if (health.failingSince !== null) {
        health.failingSince = null;
        await this.store.clearFailing(key);
      }
      this.forgetIfIdle(key, endpoint);
      return { closed: wasOpen, disabled: null };
    }
    if (verdict.kind === 'disable') return { closed: false, disabled: await this.disable(key, endpoint, baseUrl, `${url} answered 410 Gone`) };
    if (verdict.kind !== 'retry' || !verdict.countsAsEndpointFailure) return { closed: false, disabled: null };

    endpoint.failures += 1;
    endpoint.trialUntil = 0;
    if (endpoint.failures >= this.options.failureThreshold) endpoint.openUntil = this.now() + this.options.cooldownMs;
    const health = await this.health(key, endpoint);
    if (health.failingSince === null) health.failingSince = await this.store.markFailing(key, baseUrl);
    const failingMs = this.now() - health.failingSince;
    if (failingMs < this.options.disableAfterMs) return { closed: false, disabled: null };
    return { closed: false, disabled: await this.disable(key, endpoint, baseUrl, `${baseUrl} had no successful call for ${formatDuration(failingMs)}`) };
  }

  /** An admitted call that was not made after all: its slot goes back, nothing else changes. */
  cancel(key: string): void {
    const endpoint = this.endpoints.get(key);
    if (endpoint) this.release(endpoint);
  }

  /** The organisation re-saved its endpoint (which passed its checks again): it starts afresh, enabled. */
  async reset(key: string): Promise<void> {
    const endpoint = this.endpoints.get(key);
    if (endpoint) {
      endpoint.failures = 0;
      endpoint.openUntil = 0;
      endpoint.trialUntil = 0;
      endpoint.health = null;
    }
    await this.store.enable(key);
  }

  /** Whether this process's breaker holds the endpoint's deliveries back (open, or half-open with its trial out). */
  circuitOpen(key: string): boolean {
    const endpoint = this.endpoints.get(key);
    return endpoint !== undefined && this.heldForMs(endpoint) > 0;
  }

  /** Calls in flight to the endpoint from this process. */
  inFlight(key: string): number {
    return this.endpoints.get(key)?.inFlight ?? 0;
  }

  private go(endpoint: Endpoint, slotHandedOver = false): Admission {
    if (!slotHandedOver) {
      if (endpoint.inFlight === 0) endpoint.lastProgressAt = this.now();
      endpoint.inFlight += 1;
    }
    // The first call after the cool-down is the trial: until it reports, the rest stay held.
    if (endpoint.failures >= this.options.failureThreshold) endpoint.trialUntil = this.now() + this.options.cooldownMs;
    return { kind: 'go' };
  }

  /** While the circuit is open, or half-open with its trial call out: how long until it may be tried. */
  private heldForMs(endpoint: Endpoint): number {
    if (endpoint.failures < this.options.failureThreshold) return 0;
    const now = this.now();
    // A trial that never reported back (its process died) expires after a cool-down.
    return Math.max(0, endpoint.openUntil - now, endpoint.trialUntil - now);
  }

  private waitInLine(endpoint: Endpoint, maxWaitMs: number): Promise<boolean> {
    if (maxWaitMs <= 0 || this.stalled(endpoint) || endpoint.waiting.length >= this.lineLength(endpoint)) return Promise.resolve(false);
    const deadline = this.now() + maxWaitMs;
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const granted = () => {
        clearTimeout(timer);
        resolve(true);
      };
      // Wakes when the wait is over or when the endpoint would count as stalled, whichever comes first:
      // callers waiting for an endpoint that stopped answering give their place back at once.
      const check = () => {
        const now = this.now();
        if (now >= deadline || this.stalled(endpoint)) {
          const index = endpoint.waiting.indexOf(granted);
          if (index >= 0) endpoint.waiting.splice(index, 1);
          resolve(false);
          return;
        }
        timer = setTimeout(check, Math.min(deadline, endpoint.lastProgressAt + this.options.stallMs + 1) - now);
      };
      endpoint.waiting.push(granted);
      check();
    });
  }

  private release(endpoint: Endpoint): void {
    if (endpoint.inFlight === 0) return;
    endpoint.lastProgressAt = this.now();
    const next = endpoint.waiting.shift();
    if (next) next(); // the slot passes straight to the next in line
    else endpoint.inFlight -= 1;
  }

  /**
   * Would one more call to this endpoint take the slow endpoints' calls beyond `slowShare`? An endpoint's
   * first call always goes (so a healthy one can show it is prompt), and prompt endpoints are not counted.
   */
  private overSlowShare(endpoint: Endpoint): boolean {
    if (endpoint.inFlight === 0 || this.prompt(endpoint)) return false;
    let slowCalls = 0;
    for (const other of this.endpoints.values()) if (other.inFlight > 1 && !this.prompt(other)) slowCalls += other.inFlight - 1;
    return slowCalls >= this.options.slowShare;
  }

  private prompt(endpoint: Endpoint): boolean {
    return endpoint.promptAt !== null && this.now() - endpoint.promptAt < this.options.stallMs;
  }

  private stalled(endpoint: Endpoint): boolean {
    return endpoint.inFlight >= this.options.inFlightLimit && this.now() - endpoint.lastProgressAt > this.options.stallMs;
  }

  /**
   * Callers that may wait now: as many as the endpoint's slots work through in `lineWaitMs` at its
   * recent call duration (Little's law), at least one per slot and at most `maxWaiting`. So a fast
   * endpoint's backlog waits here instead of going round through Redis, while a slow one cannot take
   * the places other endpoints need. Until a call has finished the endpoint is taken to be fast.
   */
  private lineLength(endpoint: Endpoint): number {
    if (endpoint.meanCallMs === null) return this.options.maxWaiting;
    const byPace = Math.floor((this.options.lineWaitMs * this.options.inFlightLimit) / Math.max(1, endpoint.meanCallMs));
    return Math.min(this.options.maxWaiting, Math.max(this.options.inFlightLimit, byPace));
  }

  private async disable(key: string, endpoint: Endpoint, baseUrl: string, reason: string): Promise<string> {
    await this.store.disable(key, baseUrl, reason);
    endpoint.health = { failingSince: null, disabledReason: reason };
    endpoint.healthReadAt = this.now();
    return reason;
  }

  private endpoint(key: string): Endpoint {
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      const now = this.now();
      endpoint = {
        inFlight: 0,
        waiting: [],
        lastProgressAt: now,
        meanCallMs: null,
        promptAt: null,
        failures: 0,
        openUntil: 0,
        trialUntil: 0,
        health: null,
        healthReadAt: 0,
      };
      this.endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  /** A healthy endpoint with nothing in flight is forgotten, so the map holds only endpoints in use or unwell. */
  private forgetIfIdle(key: string, endpoint: Endpoint): void {
    if (endpoint.inFlight === 0 && endpoint.failures === 0 && this.now() - endpoint.healthReadAt > this.options.healthTtlMs) this.endpoints.delete(key);
  }

  private async health(key: string, endpoint: Endpoint): Promise<EndpointHealth> {
    if (endpoint.health && this.now() - endpoint.healthReadAt < this.options.healthTtlMs) return endpoint.health;
    let pending = this.reading.get(key);
    if (!pending) {
      pending = this.store.read(key).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    const health = await pending;
    endpoint.health = health;
    endpoint.healthReadAt = this.now();
    return health;
  }
}

/** `45 s`, `12 min`, `26.5 hours`: how long an endpoint kept failing, as the organisation is told. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round((ms / 3_600_000) * 10) / 10} hours`;
}

/** The store of a single process: for unit tests, and a picture of what the PostgreSQL store keeps. */
export class InMemoryEndpointHealthStore implements EndpointHealthStore {
  readonly endpoints = new Map<string, EndpointHealth & { baseUrl: string | null }>();
  readonly disabled: Array<{ endpoint: string; reason: string }> = [];

  constructor(private readonly now: () => number = Date.now) {}

  read(endpoint: string): Promise<EndpointHealth> {
    const row = this.endpoints.get(endpoint);
    return Promise.resolve({ failingSince: row?.failingSince ?? null, disabledReason: row?.disabledReason ?? null });
  }

  markFailing(endpoint: string, baseUrl: string): Promise<number> {
    const row = this.row(endpoint);
    row.failingSince ??= this.now();
    row.baseUrl = baseUrl;
    return Promise.resolve(row.failingSince);
  }

  clearFailing(endpoint: string): Promise<void> {
    const row = this.endpoints.get(endpoint);
    if (row) row.failingSince = null;
    return Promise.resolve();
  }

  disable(endpoint: string, baseUrl: string, reason: string): Promise<void> {
    const row = this.row(endpoint);
    if (row.disabledReason === null) this.disabled.push({ endpoint, reason });
    Object.assign(row, { disabledReason: reason, failingSince: null, baseUrl });
    return Promise.resolve();
  }

  enable(endpoint: string): Promise<void> {
    const row = this.endpoints.get(endpoint);
    if (row) Object.assign(row, { disabledReason: null, failingSince: null });
    return Promise.resolve();
  }

  private row(endpoint: string) {
    let row = this.endpoints.get(endpoint);
    if (!row) {
      row = { failingSince: null, disabledReason: null, baseUrl: null };
      this.endpoints.set(endpoint, row);
    }
    return row;
  }
}
