import { describe, expect, it } from '@jest/globals';
import { RepeatingTask } from './repeating-task.js';

describe('RepeatingTask', () => {
  it('runs once at a time, reports a failure and goes on, and stops after the run in progress', async () => {
    let runs = 0;
    let release!: () => void;
    const errors: string[] = [];
    const task = new RepeatingTask(async () => {
      runs += 1;
      if (runs === 1) throw new Error('first run failed');
      await new Promise<void>((resolve) => (release = resolve));
    }, (error) => errors.push(error.message));
    await task.runOnce();
    expect(errors).toEqual(['first run failed']);
    const second = task.runOnce();
    const joined = task.runOnce();
    expect(runs).toBe(2);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false);
    release();
    await Promise.all([second, joined, stopping]);
    expect(stopped).toBe(true);
  });

  it('runs every interval once started', async () => {
    let runs = 0;
    const task = new RepeatingTask(async () => void (runs += 1), () => undefined);
    task.start(5);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await task.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
  });
});
