import { setTimeout as sleep } from 'node:timers/promises';

/** Calls `send` `rate` times a second for `seconds`, on schedule whether or not earlier calls have answered. */
export async function paced<T>(rate: number, seconds: number, signal: AbortSignal, send: () => Promise<T>): Promise<T[]> {
  const count = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  const calls: Array<Promise<T>> = [];
  for (let i = 0; i < count; i++) {
    signal.throwIfAborted();
    const due = start + i * interval - performance.now();
    if (due > 0) await sleep(due);
    calls.push(send());
  }
  return Promise.all(calls);
}
