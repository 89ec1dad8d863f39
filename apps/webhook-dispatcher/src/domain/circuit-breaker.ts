export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit stays open before one trial call is let through. */
  cooldownMs: number;
}

interface Circuit {
  failures: number;
  openUntil: number;
  /** Half-open: a trial call is in flight until this time; everyone else waits for its outcome. */
  trialUntil: number;
}

/**
 * One circuit per endpoint (organisation), in process. Closed: calls go through. After
 * `failureThreshold` consecutive failures it opens for `cooldownMs`: no calls (jobs are put back
 * without using an attempt). Then half-open: one trial call; success closes, failure re-opens.
 */
export class CircuitBreakers {
  private readonly circuits = new Map<string, Circuit>();

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when a call may go now; otherwise how long to wait before asking again. */
  waitMs(key: string): number {
    const circuit = this.circuits.get(key);
    if (!circuit || circuit.failures < this.options.failureThreshold) return 0;
    const remaining = circuit.openUntil - this.now();
    if (remaining > 0) return remaining;
    const now = this.now();
    // A trial that never reported back (its job was put back, or its process died) expires after a cool-down.
    if (circuit.trialUntil > now) return circuit.trialUntil - now;
    circuit.trialUntil = now + this.options.cooldownMs;
    return 0;
  }

  /** How much longer the circuit stays open (0 when closed or due for its trial call); changes nothing. */
  openForMs(key: string): number {
    const circuit = this.circuits.get(key);
    if (!circuit || circuit.failures < this.options.failureThreshold) return 0;
    return Math.max(0, circuit.openUntil - this.now());
  }

  isOpen(key: string): boolean {
    const circuit = this.circuits.get(key);
    return !!circuit && circuit.failures >= this.options.failureThreshold;
  }

  recordSuccess(key: string): void {
    this.circuits.delete(key);
  }

  recordFailure(key: string): void {
    const circuit = this.circuits.get(key) ?? { failures: 0, openUntil: 0, trialUntil: 0 };
    circuit.failures += 1;
    circuit.trialUntil = 0;
    if (circuit.failures >= this.options.failureThreshold) circuit.openUntil = this.now() + this.options.cooldownMs;
    this.circuits.set(key, circuit);
  }

  /** The integrator re-saved its endpoint: start afresh. */
  reset(key: string): void {
    this.circuits.delete(key);
  }
}
