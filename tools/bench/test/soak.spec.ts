import { afterAll, describe, expect, it } from '@jest/globals';
import { soak } from '../src/soak.bench.js';

const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => undefined);
});

// The soak (`npm run bench -- soak`, half an hour) in three minutes: the stream keeps events a minute
// and every log that recognises them 2.5 minutes, so retention runs while answers, offers and pushes
// flow. Memory and growth figures need the half hour; they are printed here, not judged.
describe('a three-minute soak', () => {
  it('delivers every webhook once while retention prunes every log to its policy', async () => {
    const result = await soak({ minutes: 3, answerRate: 20, streamMinutes: 1, sampleSeconds: 5 }, new AbortController().signal, (step) => cleanups.push(step));

    expect({ answers: result.answers, missing: result.missing, repeats: result.repeats }).toEqual({ answers: 3600, missing: 0, repeats: 0 });
    expect(result.overdue).toEqual([]);
    // Pruning ran: the delivery log holds about its 2.5 minutes of answers, not the whole run.
    const deliveries = result.samples.at(-1)?.rows['dispatcher.delivery'] ?? Number.NaN;
    expect(deliveries).toBeLessThan(result.answers);
    console.log(
      `three-minute soak: ${result.samples.length} samples; growth per 10 min over the mean: ${[...result.series.memory, ...result.series.rows, result.series.stream, ...result.series.redis]
        .map((series) => `${series.name} ${series.growth.toFixed(3)}`)
        .join(', ')}`,
    );
  }, 360_000);
});
