import { describe, expect, it } from '@jest/globals';
import { DAY_MS, PruneBudget, RetentionPolicy } from './retention-policy.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('RetentionPolicy', () => {
  const policy = new RetentionPolicy(30 * DAY_MS, () => NOW);

  it('keeps a row exactly as old as the period, and lets one a millisecond older go', () => {
    const boundary = new Date(NOW - 30 * DAY_MS);
    expect(policy.isPast(boundary)).toBe(false);
    expect(policy.isPast(new Date(boundary.getTime() - 1))).toBe(true);
    expect(policy.isPast(new Date(boundary.getTime() + 1))).toBe(false);
  });

  it('draws its cut-off where isPast does, for the statement to use', () => {
    expect(policy.cutoff().toISOString()).toBe('2026-01-30T12:00:00.000Z');
    expect(policy.isPast(policy.cutoff())).toBe(false);
  });

  it('follows its clock: a row kept now is past the period a moment later', () => {
    let now = NOW;
    const moving = new RetentionPolicy(DAY_MS, () => now);
    const row = new Date(NOW - DAY_MS);
    expect(moving.isPast(row)).toBe(false);
    now += 1;
    expect(moving.isPast(row)).toBe(true);
  });

  it('keeps a row written in the future (a clock ahead) and refuses a period that is not positive', () => {
    expect(policy.isPast(new Date(NOW + DAY_MS))).toBe(false);
    expect(() => new RetentionPolicy(0)).toThrow('positive');
    expect(() => new RetentionPolicy(Number.NaN)).toThrow('positive');
  });
});

describe('PruneBudget', () => {
  it('goes on after a full batch while the run has time, and stops at its end', () => {
    let now = NOW;
    const budget = new PruneBudget(1_000, () => now);
    expect(budget.another(500, 500)).toBe(true);
    now += 999;
    expect(budget.another(500, 500)).toBe(true);
    now += 1;
    expect(budget.another(500, 500)).toBe(false);
  });

  it('stops after a batch that was not full: nothing more is past the policy (or another pruner has it)', () => {
    const budget = new PruneBudget(60_000, () => NOW);
    expect(budget.another(499, 500)).toBe(false);
    expect(budget.another(0, 500)).toBe(false);
  });
});
