import fc from 'fast-check';

/** Requests tried without the time limit when the limit ended before one had been answered. */
export const RUNS_WHEN_OUT_OF_TIME = 3;

/**
 * fast-check's check within a time share. A share that ends before the first run finished (a busy
 * machine) is not a failure of the operation, yet fast-check reports it as one, with no
 * counterexample: then a few runs are made without the limit, so every operation is still tried and
 * a real failure still shrinks.
 */
export async function timeBoxedCheck<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncProperty<Ts>,
  options: { seed: number; numRuns: number; timeLimitMs: number },
): Promise<fc.RunDetails<Ts>> {
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.numRuns,
    interruptAfterTimeLimit: options.timeLimitMs,
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
  if (!(details.failed && details.interrupted && details.counterexample === null)) return details;
  return fc.check(property, { seed: options.seed, numRuns: RUNS_WHEN_OUT_OF_TIME, endOnFailure: false });
}
