import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LeasedCounter, leaseUnits, type TakeLease } from './leased-rate-limit-store.js';

const WINDOW = 60_000;

/** The shared counter as Redis keeps it (INCRBY with an expiry set on creation), on an injected clock. */
function sharedCounter(clock: { now: number }) {
  const keys = new Map<string, { total: number; expiresAt: number }>();
  let calls = 0;
  const takeLease: TakeLease = async (key, units, windowMs) => {
    calls += 1;
    let entry = keys.get(key);
    if (!entry || entry.expiresAt <= clock.now) keys.set(key, (entry = { total: 0, expiresAt: clock.now + windowMs }));
    entry.total += units;
    return { total: entry.total, ttlMs: entry.expiresAt - clock.now };
  };
  return { takeLease, calls: () => calls };
}

describe('leaseUnits', () => {
  it('leases one place at a time for small budgets, 1 % of larger ones, at most 100', () => {
    expect(leaseUnits(1)).toBe(1);
    expect(leaseUnits(6)).toBe(1);
    expect(leaseUnits(199)).toBe(1);
    expect(leaseUnits(6_000)).toBe(60);
    expect(leaseUnits(100_000_000)).toBe(100);
  });
});

describe('LeasedCounter', () => {
  it('counts a small budget exactly across instances, one shared-counter call per request', async () => {
    const clock = { now: 0 };
    const shared = sharedCounter(clock);
    const instances = [new LeasedCounter(shared.takeLease, () => clock.now), new LeasedCounter(shared.takeLease, () => clock.now)];
    const places: number[] = [];
    for (let i = 0; i < 8; i += 1) places.push((await instances[i % 2].count('acme', 6, WINDOW)).current);
    expect(places).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(shared.calls()).toBe(8);
  });

  it('hands out a lease locally and asks the shared counter once per lease', async () => {
    const clock = { now: 0 };
    const shared = sharedCounter(clock);
    const counter = new LeasedCounter(shared.takeLease, () => clock.now);
    const places: number[] = [];
    for (let i = 0; i < 120; i += 1) places.push((await counter.count('acme', 6_000, WINDOW)).current);
    expect(places).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(shared.calls()).toBe(2);
  });

  it('makes requests that arrive during a lease call wait for it, and gives each its own place', async () => {
    const clock = { now: 0 };
    const shared = sharedCounter(clock);
    const counter = new LeasedCounter(shared.takeLease, () => clock.now);
    const results = await Promise.all(Array.from({ length: 250 }, () => counter.count('acme', 6_000, WINDOW)));
    expect(results.map((r) => r.current).sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(shared.calls()).toBe(5); // 60 places a lease, one lease at a time
  });

  it('reports the window time left, and starts again in the next window', async () => {
    const clock = { now: 1_000 };
    const shared = sharedCounter(clock);
    const counter = new LeasedCounter(shared.takeLease, () => clock.now);
    expect(await counter.count('acme', 6, WINDOW)).toEqual({ current: 1, ttl: WINDOW });
    clock.now += 20_000;
    expect(await counter.count('acme', 6, WINDOW)).toEqual({ current: 2, ttl: WINDOW - 20_000 });
    clock.now += WINDOW;
    expect(await counter.count('acme', 6, WINDOW)).toEqual({ current: 1, ttl: WINDOW });
  });

  it('keeps each key to its own count', async () => {
    const clock = { now: 0 };
    const shared = sharedCounter(clock);
    const counter = new LeasedCounter(shared.takeLease, () => clock.now);
    await counter.count('acme', 6, WINDOW);
    await counter.count('acme', 6, WINDOW);
    expect((await counter.count('globex', 6, WINDOW)).current).toBe(1);
  });

  it('fails the count when the shared counter cannot be reached, so the caller can let the request through', async () => {
    const counter = new LeasedCounter(() => Promise.reject(new Error('connection refused')));
    await expect(counter.count('acme', 6_000, WINDOW)).rejects.toThrow('connection refused');
  });

  it('never admits more than the budget across instances, and wastes at most a lease less one per instance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 400 }),
        async (instanceCount, max, picks) => {
          const clock = { now: 0 };
          const shared = sharedCounter(clock);
          const instances = Array.from({ length: instanceCount }, () => new LeasedCounter(shared.takeLease, () => clock.now));
          // Enough requests to use the budget up, each sent to an instance the generated picks choose.
          const requests = max + instanceCount * leaseUnits(max);
          let admitted = 0;
          for (let i = 0; i < requests; i += 1) {
            const { current } = await instances[picks[i % picks.length] % instanceCount].count('acme', max, WINDOW);
            if (current <= max) admitted += 1;
          }
          expect(admitted).toBeLessThanOrEqual(max);
          expect(admitted).toBeGreaterThanOrEqual(max - instanceCount * (leaseUnits(max) - 1));
        },
      ),
      { numRuns: 60 },
    );
  });
});
