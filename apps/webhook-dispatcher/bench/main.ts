import { DEFAULT_OPTIONS, formatReport, runDispatcherBenchmark } from './dispatcher.bench.js';

/** `npm run build && node dist/apps/webhook-dispatcher/bench/main.js` (needs PostgreSQL, Redis and NATS). */
const report = await runDispatcherBenchmark({
  throughputEvents: Number(process.env.BENCH_EVENTS ?? 15_000),
  latencySeconds: Number(process.env.BENCH_LATENCY_SECONDS ?? 10),
  hangingBacklog: Number(process.env.BENCH_HANGING_BACKLOG ?? DEFAULT_OPTIONS.hangingBacklog),
  hangingRuns: Number(process.env.BENCH_HANGING_RUNS ?? DEFAULT_OPTIONS.hangingRuns),
  processes: Number(process.env.BENCH_SERVICE_PROCESSES ?? DEFAULT_OPTIONS.processes),
});
console.log(formatReport(report));
console.log(JSON.stringify(report));
process.exit(0);
