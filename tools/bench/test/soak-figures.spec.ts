import { describe, expect, it } from '@jest/globals';
import { growthPerTenMinutes, overdueClasses, type SoakSample } from '../src/soak/soak-figures.js';

const sample = (at: number, oldestAge: Record<string, number>): SoakSample => ({ at, memory: {}, rows: {}, oldestAge, streamBytes: 0, redisKeys: 0, redisBytes: 0 });

describe('growthPerTenMinutes', () => {
  it('is the least-squares slope per ten minutes over the mean', () => {
    const minutes = [0, 5, 10, 15, 20].map((m) => m * 60_000);
    expect(growthPerTenMinutes(minutes, [100, 100, 100, 100, 100])).toBe(0);
    // 10 a ten minutes on a mean of 110.
    expect(growthPerTenMinutes(minutes, [100, 105, 110, 115, 120])).toBeCloseTo(10 / 110);
    // One high reading moves it less than the reading itself.
    expect(growthPerTenMinutes(minutes, [100, 100, 140, 100, 100])).toBe(0);
  });

  it('is 0 with too few readings or nothing to measure', () => {
    expect(growthPerTenMinutes([0, 1], [1, 2])).toBe(0);
    expect(growthPerTenMinutes([0, 1, 2], [0, 0, 0])).toBe(0);
  });
});

describe('overdueClasses', () => {
  const keep = { 'webhook-dispatcher delivery-log': 150 };

  it('names a class whose oldest row outlived its keep period, an interval and the slack', () => {
    expect(overdueClasses([sample(200_000, { 'webhook-dispatcher delivery-log': 191 })], keep, 10, 30)).toEqual([
      'webhook-dispatcher delivery-log (oldest 191 s, keeps 150 s, at 200 s)',
    ]);
    expect(overdueClasses([sample(200_000, { 'webhook-dispatcher delivery-log': 189 })], keep, 10, 30)).toEqual([]);
  });

  it('judges no reading taken before the class could first be pruned, nor a class without a policy', () => {
    expect(overdueClasses([sample(150_000, { 'webhook-dispatcher delivery-log': 500 })], keep, 10, 30)).toEqual([]);
    expect(overdueClasses([sample(900_000, { unknown: 5_000 })], keep, 10, 30)).toEqual([]);
  });
});
