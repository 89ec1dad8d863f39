import { DEFAULT_OPTIONS, formatFairness, formatReport, runDispatcherBenchmark, runFairnessBenchmark } from './dispatcher.bench.js';

/**
 * `npm run build && node dist/apps/webhook-dispatcher/bench/main.js` (needs PostgreSQL, Redis and NATS).
 * BENCH_DISPATCHER_SCENARIO=fairness runs only the healthy organisation beside eight hanging ones.
 */
const scenario = process.env.BENCH_DISPATCHER_SCENARIO ?? 'all';
if (scenario !== 'all' && scenario !== 'fairness') throw new Error(`BENCH_DISPATCHER_SCENARIO must be all or fairness, got ${scenario}`);
const options = {
  throughputEvents: Number(process.env.BENCH_EVENTS ?? 15_000),
  latencySeconds: Number(process.env.BENCH_LATENCY_SECONDS ?? 10),
  hangingBacklog: Number(process.env.BENCH_HANGING_BACKLOG ?? DEFAULT_OPTIONS.hangingBacklog),
  hangingRuns: Number(process.env.BENCH_HANGING_RUNS ?? DEFAULT_OPTIONS.hangingRuns),
  processes: Number(process.env.BENCH_SERVICE_PROCESSES ?? DEFAULT_OPTIONS.processes),
};
if (scenario === 'fairness') {
  const report = await runFairnessBenchmark(options);
  console.log(formatFairness(report));
  console.log(JSON.stringify(report));
} else {
  const report = await runDispatcherBenchmark(options);
  console.log(formatReport(report));
  console.log(JSON.stringify(report));
}
process.exit(0);
