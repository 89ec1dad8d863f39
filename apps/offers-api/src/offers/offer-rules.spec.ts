import { describe, expect, it } from '@jest/globals';
import { ProblemException } from '@availability/service-core';
import {
  assertWorkerCanAnswer,
  checkTimeSlots,
  lastEnd,
  normaliseSlots,
  parseAssignedWorkers,
  planCompletion,
  planWithdrawal,
} from './offer-rules.js';

const open = { widthdrawn: false, complete: false, ended: false };
const now = new Date('2026-11-22T10:00:00Z');

function problemOf(action: () => unknown) {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return (error as ProblemException).problem;
  }
  throw new Error('expected a problem');
}

describe('checkTimeSlots', () => {
  it('accepts future slots that start before they end', () => {
    expect(checkTimeSlots([{ start: '2026-11-23T08:00:00Z', end: '2026-11-23T16:00:00Z' }], now)).toEqual({});
  });

  it('names the slot and the field of each problem', () => {
    const errors = checkTimeSlots(
      [
        { start: '2026-11-23T08:00:00Z', end: '2026-11-23T16:00:00Z' },
        { start: '2026-11-23T16:00:00Z', end: '2026-11-23T16:00:00Z' },
        { start: '2026-11-21T08:00:00Z', end: '2026-11-21T16:00:00Z' },
      ],
      now,
    );
    expect(errors).toEqual({ 'events[1].end': ['end must be after start'], 'events[2].start': ['start must be in the future'] });
  });
});

describe('slots', () => {
  it('normalises to millisecond UTC and finds the last end', () => {
    const slots = normaliseSlots([
      { start: '2026-11-23T08:00:00Z', end: '2026-11-23T16:00:00+00:00' },
      { start: '2026-11-24T08:00:00.5Z', end: '2026-11-24T12:00:00Z' },
    ]);
    expect(slots).toEqual([
      { start: '2026-11-23T08:00:00.000Z', end: '2026-11-23T16:00:00.000Z' },
      { start: '2026-11-24T08:00:00.500Z', end: '2026-11-24T12:00:00.000Z' },
    ]);
    expect(lastEnd(slots).toISOString()).toBe('2026-11-24T12:00:00.000Z');
  });
});

describe('parseAssignedWorkers', () => {
  it('accepts an array of distinct ids, including an empty one', () => {
    expect(parseAssignedWorkers(['a', 'b'])).toEqual(['a', 'b']);
    expect(parseAssignedWorkers([])).toEqual([]);
  });

  it.each([[{ workerIds: [] }], ['a'], [null], [undefined]])('rejects %p, which is not an array', (body) => {
    expect(problemOf(() => parseAssignedWorkers(body))).toMatchObject({ status: 400, errors: { body: [expect.any(String)] } });
  });

  it('points at each bad element', () => {
    expect(problemOf(() => parseAssignedWorkers(['a', 3, 'a', '']))).toMatchObject({
      errors: { '[1]': [expect.any(String)], '[2]': ['worker a is named more than once'], '[3]': [expect.any(String)] },
    });
  });

  it('refuses a list over the bound on its size alone, and lists at most 20 bad elements', () => {
    expect(problemOf(() => parseAssignedWorkers(Array(49_000).fill(0)))).toMatchObject({ errors: { body: [expect.stringContaining('10000')] } });
    expect(Object.keys(problemOf(() => parseAssignedWorkers(Array(9_000).fill(0))).errors ?? {})).toHaveLength(21);
  });
});

describe('planCompletion', () => {
  const recipients = [
    { workerId: 'w1', response: 'applied' },
    { workerId: 'w2', response: 'rejected' },
    { workerId: 'w3', response: 'awaiting' },
  ];

  it('splits recipients into successful and unsuccessful', () => {
    expect(planCompletion(open, recipients, ['w1'])).toEqual({ successful: ['w1'], unsuccessful: ['w2', 'w3'] });
    expect(planCompletion(open, recipients, [])).toEqual({ successful: [], unsuccessful: ['w1', 'w2', 'w3'] });
  });

  it('refuses workers who did not apply or are not recipients', () => {
    expect(problemOf(() => planCompletion(open, recipients, ['w2', 'w9']))).toMatchObject({
      status: 400,
      errors: { '[0]': ['worker w2 has not applied (response: rejected)'], '[1]': ['worker w9 is not a recipient of this offer'] },
    });
  });

  it('refuses completed and withdrawn offers with 409', () => {
    expect(problemOf(() => planCompletion({ ...open, complete: true }, recipients, []))).toMatchObject({ status: 409 });
    expect(problemOf(() => planCompletion({ ...open, widthdrawn: true }, recipients, []))).toMatchObject({ status: 409 });
  });
});

describe('planWithdrawal and answers', () => {
  it('withdraws open offers, ignores repeats, refuses completed ones', () => {
    expect(planWithdrawal(open)).toBe('withdraw');
    expect(planWithdrawal({ ...open, ended: true })).toBe('withdraw');
    expect(planWithdrawal({ ...open, widthdrawn: true })).toBe('already-withdrawn');
    expect(problemOf(() => planWithdrawal({ ...open, complete: true }))).toMatchObject({ status: 409 });
  });

  it('lets workers answer only open offers', () => {
    expect(() => assertWorkerCanAnswer(open)).not.toThrow();
    for (const state of [{ widthdrawn: true }, { complete: true }, { ended: true }]) {
      expect(problemOf(() => assertWorkerCanAnswer({ ...open, ...state }))).toMatchObject({ status: 409 });
    }
  });
});
