import { describe, expect, it } from '@jest/globals';
import { MicroBatcher } from './micro-batcher.js';

describe('MicroBatcher', () => {
  it('groups concurrent calls into batches and returns each caller its own result', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((n) => n * 2);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([[1, 2, 3], [4, 5]]);
  });

  it('fails every caller of a failed batch', async () => {
    const batcher = new MicroBatcher<number, number>(async () => {
      throw new Error('db down');
    });
    await expect(Promise.all([batcher.add(1), batcher.add(2)])).rejects.toThrow('db down');
  });

  it('with a linger, gathers what arrives meanwhile into one batch', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => (batches.push(items), items), 10, 300);
    const first = batcher.add(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(batches).toEqual([]);
    await Promise.all([first, batcher.add(2), batcher.add(3)]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('with a linger, flushes a full batch at once, and the rest on drain, without waiting it out', async () => {
    const batches: number[][] = [];
    // A linger longer than the test's own timeout: waiting it out would fail the test.
    const batcher = new MicroBatcher<number, number>(async (items) => (batches.push(items), items), 2, 600_000);
    await Promise.all([batcher.add(1), batcher.add(2)]);
    const third = batcher.add(3);
    await batcher.drain();
    await expect(third).resolves.toBe(3);
    expect(batches).toEqual([[1, 2], [3]]);
  });
});
