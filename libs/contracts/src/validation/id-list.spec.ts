import { describe, expect, it } from '@jest/globals';
import { isNotEmpty, isString, maxLength } from 'class-validator';
import fc from 'fast-check';
import { idListProblem } from './id-list.js';

const MAX = 8;

/** What the four class-validator rules IdList stands for say of a list. */
function rulesAccept(value: unknown[]): boolean {
  return value.every((id) => isString(id) && isNotEmpty(id) && maxLength(id, MAX)) && new Set(value).size === value.length;
}

describe('idListProblem', () => {
  it('accepts exactly the lists class-validator’s rules accept', () => {
    const id = fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
      fc.constantFrom('', 'a', 'w1', '\u2764\ufe0f'.repeat(8), 'x'.repeat(9), 'x'.repeat(40)),
      fc.anything(),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 12 }), (list) => {
        expect(idListProblem(list, 'workerIds', MAX) === undefined).toBe(rulesAccept(list));
      }),
      { numRuns: 2_000 },
    );
  });

  it('names the first problem in class-validator’s words', () => {
    expect(idListProblem('w1', 'workerIds', MAX)).toBe('workerIds must be an array');
    expect(idListProblem(['w1', 7], 'workerIds', MAX)).toBe('each value in workerIds must be a string');
    expect(idListProblem(['w1', ''], 'workerIds', MAX)).toBe('each value in workerIds should not be empty');
    expect(idListProblem(['w1', 'x'.repeat(9)], 'workerIds', MAX)).toBe('each value in workerIds must be shorter than or equal to 8 characters');
    expect(idListProblem(['w1', 'w2', 'w1'], 'workerIds', MAX)).toBe('workerIds must not repeat a value');
    expect(idListProblem(['w1', 'w2'], 'workerIds', MAX)).toBeUndefined();
  });

  it('refuses a huge id without counting its characters', () => {
    expect(idListProblem(['x'.repeat(5_000_000)], 'workerIds', MAX)).toMatch(/shorter than or equal to 8/);
  });
});
