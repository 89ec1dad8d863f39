import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AnswerOrder, numberedAnswerOf } from './answer-order.js';

const answer = (sequence?: number, workerId = 'w1') => ({ offerId: 'o1', workerId, ...(sequence === undefined ? {} : { sequence }) });

describe('AnswerOrder', () => {
  it('drops a lower or equal sequence and applies a higher one', () => {
    const order = new AnswerOrder();
    expect([2, 1, 2, 3].map((sequence) => order.apply(answer(sequence)))).toEqual([true, false, false, true]);
  });

  it('reads the recipient and sequence from a body, and nothing from one that is not an answer', () => {
    expect(numberedAnswerOf('{"offerId":"o1","workerId":"w1","sequence":2}')).toEqual(answer(2));
    expect(numberedAnswerOf('{"offerId":"o1","workerId":"w1"}')).toEqual(answer());
    expect(numberedAnswerOf('not json')).toBeUndefined();
    expect(numberedAnswerOf('null')).toBeUndefined();
  });

  it('keeps each recipient apart', () => {
    const order = new AnswerOrder();
    expect(order.apply(answer(5))).toBe(true);
    expect(order.apply(answer(1, 'w2'))).toBe(true);
  });

  it('applies an unnumbered answer only while no numbered one is held', () => {
    const order = new AnswerOrder();
    expect([undefined, 1, undefined].map((sequence) => order.apply(answer(sequence)))).toEqual([true, true, false]);
  });

  it('in any arrival order with repeats, accepts strictly increasing sequences and ends with the latest', () => {
    const arrivals = fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(arrivals, (sequences) => {
        const order = new AnswerOrder();
        const accepted = sequences.filter((sequence) => order.apply(answer(sequence)));
        expect(accepted).toEqual([...new Set(accepted)].sort((a, b) => a - b));
        expect(accepted.at(-1)).toBe(Math.max(...sequences));
      }),
    );
  });
});
