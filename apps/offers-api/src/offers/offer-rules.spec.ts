import { describe, expect, it } from '@jest/globals';
import { OfferLimits } from '@availability/contracts';
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

describe('checkTimeSlots at the boundaries', () => {
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

  it('a slot starting now is in the past; a millisecond later is the future', () => {
    expect(checkTimeSlots([{ start: at(0), end: at(3_600_000) }], now)).toEqual({ 'events[0].start': ['start must be in the future'] });
    expect(checkTimeSlots([{ start: at(1), end: at(3_600_000) }], now)).toEqual({});
  });

  it('a slot ending a millisecond after its start is fine; ending before it or at it is not', () => {
    expect(checkTimeSlots([{ start: at(1_000), end: at(1_001) }], now)).toEqual({});
    expect(checkTimeSlots([{ start: at(2_000), end: at(1_000) }], now)).toEqual({ 'events[0].end': ['end must be after start'] });
  });

  it('reports both problems of one slot, and unreadable times as errors', () => {
    expect(checkTimeSlots([{ start: at(-2_000), end: at(-3_000) }], now)).toEqual({
      'events[0].end': ['end must be after start'],
      'events[0].start': ['start must be in the future'],
    });
    expect(checkTimeSlots([{ start: 'soon', end: at(1_000) }], now)).toHaveProperty(['events[0].end']);
  });
});

describe('slots', () => {
  it('the last end is the latest of all, wherever it is in the list', () => {
    const slots = [
      { start: '2026-11-25T08:00:00.000Z', end: '2026-11-25T16:00:00.000Z' },
      { start: '2026-11-23T08:00:00.000Z', end: '2026-11-23T16:00:00.000Z' },
    ];
    expect(lastEnd(slots).toISOString()).toBe('2026-11-25T16:00:00.000Z');
  });

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
    expect(problemOf(() => parseAssignedWorkers(body))).toMatchObject({
      status: 400,
      detail: 'The body must be a JSON array of worker ids.',
      errors: { body: ['must be a JSON array of worker ids'] },
    });
  });

  it(`takes up to ${OfferLimits.workers} workers, and ids of up to ${OfferLimits.idLength} characters`, () => {
    const most = Array.from({ length: OfferLimits.workers }, (_, i) => `w${i}`);
    expect(parseAssignedWorkers(most)).toHaveLength(OfferLimits.workers);
    expect(problemOf(() => parseAssignedWorkers([...most, 'one-more']))).toMatchObject({
      status: 400,
      errors: { body: [`must name at most ${OfferLimits.workers} workers`] },
    });
    const longest = 'w'.repeat(OfferLimits.idLength);
    expect(parseAssignedWorkers([longest])).toEqual([longest]);
    expect(problemOf(() => parseAssignedWorkers([`${longest}w`]))).toMatchObject({ errors: { '[0]': [expect.stringContaining('at most 64 characters')] } });
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

  it('refuses completed and withdrawn offers with 409, saying which', () => {
    expect(problemOf(() => planCompletion({ ...open, complete: true }, recipients, []))).toMatchObject({
      status: 409,
      type: expect.stringMatching(/offer-complete$/),
      detail: 'The offer is already complete and cannot be completed.',
    });
    expect(problemOf(() => planCompletion({ ...open, widthdrawn: true }, recipients, []))).toMatchObject({
      status: 409,
      type: expect.stringMatching(/offer-withdrawn$/),
      detail: 'The offer has been withdrawn and cannot be completed.',
    });
  });

  it('may complete an offer whose work has ended', () => {
    expect(planCompletion({ ...open, ended: true }, recipients, ['w1'])).toEqual({ successful: ['w1'], unsuccessful: ['w2', 'w3'] });
  });

  it('names the whole problem when workers cannot be assigned', () => {
    expect(problemOf(() => planCompletion(open, recipients, ['w3']))).toMatchObject({
      type: expect.stringMatching(/validation-failed$/),
      detail: 'Only recipients who applied can be assigned.',
      errors: { '[0]': ['worker w3 has not applied (response: awaiting)'] },
    });
  });
});

describe('planWithdrawal and answers', () => {
  it('withdraws open offers, ignores repeats, refuses completed ones', () => {
    expect(planWithdrawal(open)).toBe('withdraw');
    expect(planWithdrawal({ ...open, ended: true })).toBe('withdraw');
    expect(planWithdrawal({ ...open, widthdrawn: true })).toBe('already-withdrawn');
    expect(problemOf(() => planWithdrawal({ ...open, complete: true }))).toMatchObject({
      status: 409,
      type: expect.stringMatching(/offer-complete$/),
      detail: 'The offer is already complete and cannot be withdrawn.',
    });
    expect(planWithdrawal({ ...open, widthdrawn: true, complete: true })).toBe('already-withdrawn');
  });

  it('lets workers answer only open offers, saying why not', () => {
    expect(() => assertWorkerCanAnswer(open)).not.toThrow();
    for (const [state, slug, detail] of [
      [{ widthdrawn: true }, 'offer-withdrawn', 'The offer has been withdrawn.'],
      [{ complete: true }, 'offer-complete', 'The offer is already complete.'],
      [{ ended: true }, 'offer-ended', 'The work of this offer has already ended.'],
      [{ widthdrawn: true, complete: true, ended: true }, 'offer-withdrawn', 'The offer has been withdrawn.'],
      [{ complete: true, ended: true }, 'offer-complete', 'The offer is already complete.'],
    ] as const) {
      expect(problemOf(() => assertWorkerCanAnswer({ ...open, ...state }))).toMatchObject({ status: 409, type: expect.stringMatching(new RegExp(`${slug}$`)), detail });
    }
  });
});
