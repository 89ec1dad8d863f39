import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AnswerOrder } from './answer-order.js';

const order = new AnswerOrder();

describe('AnswerOrder', () => {
  it('supersedes an answer the log holds a newer one of, and nothing else', () => {
    expect(order.verdict({ sequence: 1, series: 0 }, 2)).toBe('supersede');
    expect(order.verdict({ sequence: 2, series: 0 }, 2)).toBe('send');
    expect(order.verdict({ sequence: 2, series: 0 }, null)).toBe('send');
    // An old event's answer carries no sequence: never superseded.
    expect(order.verdict({ sequence: null, series: 0 }, 5)).toBe('send');
    // An explicit redelivery was asked for.
    expect(order.verdict({ sequence: 1, series: 1 }, 2)).toBe('send');
  });
});

/** One answer's delivery in the simulated log. */
interface Row {
  sequence: number;
  series: number;
  status: 'pending' | 'failed' | 'succeeded' | 'dead' | 'superseded';
  attemptsInSeries: number;
  dueAt: number;
}

type Step =
  | { kind: 'answer' }
  | { kind: 'claim'; instance: number; pick: number }
  | { kind: 'finish'; instance: number; ok: boolean }
  | { kind: 'tick'; ms: number }
  | { kind: 'redeliver'; pick: number };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    fc.constant<Step>({ kind: 'answer' }),
    fc.record({ kind: fc.constant('claim' as const), instance: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }),
    fc.record({ kind: fc.constant('finish' as const), instance: fc.integer({ min: 0, max: 1 }), ok: fc.boolean() }),
    fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 10_000 }) }),
    fc.record({ kind: fc.constant('redeliver' as const), pick: fc.nat() }),
  ),
  { maxLength: 80 },
);

const MAX_ATTEMPTS = 4;
const RETRY_MS = 1_000;

/**
 * One worker's answers to one offer, delivered by two dispatcher instances over a log (the claim
 * decides, then the call goes out: another answer can be logged in between), to an integrator that
 * applies the guide's rule (keep the highest sequence, drop a lower or equal one). Time is the
 * simulation's own clock.
 */
class Simulation {
  now = 0;
  readonly log: Row[] = [];
  readonly inFlight: Array<{ row: Row; series: number } | undefined> = [undefined, undefined];
  /** The sequences the integrator applied, in order. */
  readonly applied: number[] = [];
  /** Attempts of series 0 sent while the log held a newer answer at their claim: must stay empty. */
  readonly sentSuperseded: number[] = [];

  private newest(): number | null {
    return this.log.length === 0 ? null : Math.max(...this.log.map((r) => r.sequence));
  }

  run(step: Step): void {
    if (step.kind === 'answer') this.answer();
    if (step.kind === 'tick') this.now += step.ms;
    if (step.kind === 'claim') this.claim(step.instance, step.pick);
    if (step.kind === 'finish') this.finish(step.instance, step.ok);
    if (step.kind === 'redeliver') this.redeliver(this.log[step.pick % Math.max(1, this.log.length)]);
  }

  /** A new answer is logged; the older ones that failed or died, and no instance is attempting, are superseded as it arrives. */
  answer(): void {
    const sequence = this.log.length + 1;
    for (const row of this.log) {
      const idle = (row.status === 'failed' || row.status === 'dead') && !this.inFlight.some((f) => f?.row === row);
      if (idle && order.verdict(row, sequence) === 'supersede') row.status = 'superseded';
    }
    this.log.push({ sequence, series: 0, status: 'pending', attemptsInSeries: 0, dueAt: this.now });
  }

  claim(instance: number, pick: number): void {
    const due = this.log.filter((r) => (r.status === 'pending' || r.status === 'failed') && r.dueAt <= this.now && !this.inFlight.some((f) => f?.row === r));
    if (this.inFlight[instance] || due.length === 0) return;
    const row = due[pick % due.length];
    if (order.verdict(row, this.newest()) === 'supersede') {
      row.status = 'superseded';
      return;
    }
    if (row.series === 0 && (this.newest() ?? 0) > row.sequence) this.sentSuperseded.push(row.sequence);
    this.inFlight[instance] = { row, series: row.series };
  }

  finish(instance: number, ok: boolean): void {
    const flight = this.inFlight[instance];
    if (!flight) return;
    this.inFlight[instance] = undefined;
    if (ok && (this.applied.length === 0 || flight.row.sequence > this.applied[this.applied.length - 1])) this.applied.push(flight.row.sequence);
    // An attempt of an earlier series (redelivered meanwhile) leaves the row to its new series.
    if (flight.row.series !== flight.series) return;
    const row = flight.row;
    row.attemptsInSeries += 1;
    row.status = ok ? 'succeeded' : row.attemptsInSeries >= MAX_ATTEMPTS ? 'dead' : 'failed';
    row.dueAt = this.now + RETRY_MS;
  }

  redeliver(row: Row | undefined): void {
    if (!row) return;
    Object.assign(row, { series: row.series + 1, status: 'pending', attemptsInSeries: 0, dueAt: this.now });
  }

  /** The endpoint healthy again: calls in flight land, what is due is sent, and the operator redelivers what died (by time: failed and dead only). */
  drain(): void {
    for (let round = 0; round < 1_000; round++) {
      this.inFlight.forEach((_, instance) => this.finish(instance, true));
      this.now += RETRY_MS;
      for (const row of this.log.filter((r) => r.status === 'dead')) this.redeliver(row);
      if (!this.log.some((r) => r.status === 'pending' || r.status === 'failed')) return;
      this.claim(0, 0);
      this.claim(1, 0);
    }
    throw new Error('the log never settled');
  }
}

describe('answers in order, over random interleavings', () => {
  it("the integrator ends with the worker's latest answer, and the sequences it applied strictly increase", () => {
    fc.assert(
      fc.property(steps, (interleaving) => {
        const simulation = new Simulation();
        for (const step of interleaving) simulation.run(step);
        simulation.drain();
        expect(simulation.sentSuperseded).toEqual([]);
        const latest = simulation.log.length;
        if (latest > 0) expect(simulation.applied.at(-1)).toBe(latest);
        expect(simulation.applied).toEqual([...simulation.applied].sort((a, b) => a - b));
        expect(new Set(simulation.applied).size).toBe(simulation.applied.length);
        // The newest answer is never superseded.
        expect(simulation.log.filter((r) => r.status === 'superseded').every((r) => r.sequence < latest)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
