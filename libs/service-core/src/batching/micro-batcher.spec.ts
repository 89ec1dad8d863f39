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
});
