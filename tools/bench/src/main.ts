import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { type Defer, type OffersBenchSettings, runOffersBench } from './offers.bench.js';
import { type PlatformBenchSettings, runPlatformBench } from './platform.bench.js';
import { runWorstOfferBench } from './worst-offer.bench.js';
import { runHistoryBench } from './history.bench.js';
import { runSoakBench } from './soak.bench.js';
import { type BenchReport, formatReport, saveReport } from './report.js';

/**
 * `npm run bench [-- offers] [--duration=10 --warmup=3 --post-connections=.. --get-connections=..
 *  --rate=300 --rate-connections=.. --offers=100 --rounds=3]`, `npm run bench -- worst-offer [--repeats=20]`, or the same as BENCH_DURATION, BENCH_WARMUP, ...
 * `--cluster` (BENCH_CLUSTER=true) runs offers and platform on a three-node NATS cluster, the stream replicated three times.
 * `history [--scale=1 --page-requests=200]` (named only): the platform on a database grown to a year of history beside a young one.
 * `soak [--minutes=30 --answer-rate=100 --stream-minutes=2 --sample-seconds=10]` (named only): the platform for half an hour, its logs kept minutes.
 * `platform --servers=own|tls` (BENCH_SERVERS) runs it on PostgreSQL and Redis of its own, or on its own PostgreSQL, NATS and Redis over TLS.
 * Exits 0 when targets are missed (it is a measurement); 1 when the benchmark itself failed.
 */
const OPTIONS = {
  duration: { env: 'BENCH_DURATION', default: 10 },
  warmup: { env: 'BENCH_WARMUP', default: 3 },
  'post-connections': { env: 'BENCH_POST_CONNECTIONS', default: 32 },
  'get-connections': { env: 'BENCH_GET_CONNECTIONS', default: 32 },
  rate: { env: 'BENCH_RATE', default: 300 },
  'rate-connections': { env: 'BENCH_RATE_CONNECTIONS', default: 10 },
  offers: { env: 'BENCH_OFFERS', default: 100 },
  rounds: { env: 'BENCH_ROUNDS', default: 3 },
  'answer-rate': { env: 'BENCH_ANSWER_RATE', default: 100 },
  'busy-answer-rate': { env: 'BENCH_BUSY_ANSWER_RATE', default: 400 },
  'offer-rate': { env: 'BENCH_OFFER_RATE', default: 20 },
  'offer-workers': { env: 'BENCH_OFFER_WORKERS', default: 50 },
  repeats: { env: 'BENCH_REPEATS', default: 20 },
  scale: { env: 'BENCH_SCALE', default: 1 },
  'page-requests': { env: 'BENCH_PAGE_REQUESTS', default: 200 },
  minutes: { env: 'BENCH_SOAK_MINUTES', default: 30 },
  'stream-minutes': { env: 'BENCH_SOAK_STREAM_MINUTES', default: 2 },
  'sample-seconds': { env: 'BENCH_SOAK_SAMPLE_SECONDS', default: 10 },
} as const;

type OptionName = keyof typeof OPTIONS;

/** The benchmarks `--cluster` applies to. */
const CLUSTER_BENCHMARKS = ['offers', 'platform'];

type Settings = Record<OptionName, number> & { cluster: boolean; servers: PlatformBenchSettings['servers'] };

const SERVERS = ['shared', 'own', 'tls'] as const;

const BENCHMARKS: Record<string, (settings: Settings, signal: AbortSignal, defer: Defer) => Promise<BenchReport>> = {
  offers: (o, signal, defer) => {
    const settings: OffersBenchSettings = {
      durationSeconds: o.duration,
      warmupSeconds: o.warmup,
      postConnections: o['post-connections'],
      getConnections: o['get-connections'],
      fixedRate: o.rate,
      fixedRateConnections: o['rate-connections'],
      offers: o.offers,
      rounds: o.rounds,
      workers: 10,
      natsCluster: o.cluster,
    };
    return runOffersBench(settings, signal, defer);
  },
  platform: (o, signal, defer) =>
    runPlatformBench(
      {
        durationSeconds: o.duration,
        warmupSeconds: o.warmup,
        answerRate: o['answer-rate'],
        busyAnswerRate: o['busy-answer-rate'],
        offerRate: o['offer-rate'],
        workersPerOffer: o['offer-workers'],
        natsCluster: o.cluster,
        servers: o.servers,
      },
      signal,
      defer,
    ),
  'worst-offer': (o, signal, defer) => runWorstOfferBench({ repeats: o.repeats }, signal, defer),
  soak: (o, signal, defer) =>
    runSoakBench({ minutes: o.minutes, answerRate: o['answer-rate'], streamMinutes: o['stream-minutes'], sampleSeconds: o['sample-seconds'] }, signal, defer),
  history: (o, signal, defer) =>
    runHistoryBench(
      { scale: o.scale, durationSeconds: o.duration, warmupSeconds: o.warmup, answerRate: o['answer-rate'], offerRate: o['offer-rate'], pageRequests: o['page-requests'] },
      signal,
      defer,
    ),
};

/** Benchmarks run only when named: they take many minutes (history grows tens of millions of rows; a soak runs half an hour). */
const NAMED_ONLY = ['history', 'soak'];

/**
 * Benchmarks that live with their service (`apps/<app>/bench/main.ts`), run as their own process so
 * no tool imports an app. Each prints its own table and figures.
 */
const APP_BENCHMARKS: Record<string, string> = {
  suggestions: 'contact-directory',
  dispatcher: 'webhook-dispatcher',
  push: 'notification-service',
};

async function runAppBenchmark(name: string, signal: AbortSignal): Promise<number> {
  console.log(`\nBenchmark: ${name}   (npm run bench -- ${name})`);
  const child = spawn(process.execPath, [`dist/apps/${APP_BENCHMARKS[name]}/bench/main.js`], { stdio: 'inherit' });
  const stop = () => child.kill('SIGINT');
  signal.addEventListener('abort', stop, { once: true });
  const [code] = (await once(child, 'exit')) as [number | null];
  signal.removeEventListener('abort', stop);
  return code ?? 1;
}

function readSettings(): { names: string[]; settings: Settings } {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ...Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: 'string' as const }])),
      cluster: { type: 'boolean' as const },
      servers: { type: 'string' as const },
    },
  });
  const given = values as Record<string, string | boolean | undefined>;
  const servers = (given.servers as string | undefined) ?? process.env.BENCH_SERVERS ?? 'shared';
  if (!(SERVERS as readonly string[]).includes(servers)) throw new Error(`--servers (BENCH_SERVERS) must be ${SERVERS.join(', ')}, got ${servers}`);
  const settings = { cluster: given.cluster === true || /^(1|true|yes)$/i.test(process.env.BENCH_CLUSTER ?? ''), servers } as Settings;
  for (const [name, option] of Object.entries(OPTIONS) as Array<[OptionName, (typeof OPTIONS)[OptionName]]>) {
    const raw = (given[name] as string | undefined) ?? process.env[option.env];
    const value = raw === undefined ? option.default : Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} (${option.env}) must be a positive number, got ${raw}`);
    settings[name] = value;
  }
  const available = [...Object.keys(BENCHMARKS), ...Object.keys(APP_BENCHMARKS)];
  const names = positionals.length > 0 ? positionals : settings.cluster ? CLUSTER_BENCHMARKS : available.filter((name) => !NAMED_ONLY.includes(name));
  const unknown = names.filter((name) => !available.includes(name));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}`);
  const single = settings.cluster ? names.filter((name) => !CLUSTER_BENCHMARKS.includes(name)) : [];
  if (single.length > 0) throw new Error(`--cluster runs ${CLUSTER_BENCHMARKS.join(' and ')} only, not ${single.join(', ')}`);
  if (settings.servers !== 'shared' && names.some((name) => name !== 'platform')) throw new Error('--servers applies to platform only');
  if (settings.servers === 'tls' && settings.cluster) throw new Error('--servers=tls runs one NATS server, not a cluster');
  return { names, settings };
}

async function main(): Promise<number> {
  let names: string[];
  let settings: Settings;
  try {
    ({ names, settings } = readSettings());
  } catch (error) {
    console.error(`[bench] ${(error as Error).message}`);
    return 2;
  }
  const abort = new AbortController();
  const cleanups: Array<() => Promise<unknown>> = [];
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) process.exit(130); // second Ctrl-C: give up on cleaning
    console.error(`\n[bench] ${signal}: stopping the load and cleaning up (Ctrl-C again to quit at once)`);
    abort.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let exitCode = 0;
  try {
    for (const name of names) {
      if (APP_BENCHMARKS[name]) {
        const code = await runAppBenchmark(name, abort.signal);
        if (code !== 0) exitCode = 1;
        continue;
      }
      try {
        const report = await BENCHMARKS[name](settings, abort.signal, (step) => cleanups.push(step));
        console.log(formatReport(report));
        console.log(`[bench] figures written to ${await saveReport(report)}`);
      } finally {
        // Before the next benchmark starts: what this one left running would be billed to the next.
        await cleanUp(cleanups);
      }
    }
  } catch (error) {
    if (abort.signal.aborted) {
      console.error('[bench] interrupted: no figures');
      exitCode = 130;
    } else {
      console.error(`[bench] failed: ${(error as Error).stack ?? error}`);
      exitCode = 1;
    }
  } finally {
    // Processes, stream and database go even when the run failed.
    await cleanUp(cleanups);
  }
  return exitCode;
}

process.exit(await main());

/** Runs the clean-up steps registered so far, newest first, and forgets them. */
async function cleanUp(cleanups: Array<() => Promise<unknown>>): Promise<void> {
  if (cleanups.length === 0) return;
  for (const step of cleanups.splice(0).reverse()) await step().catch((error: Error) => console.error(`[bench] clean-up step failed: ${error.message}`));
  console.log('[bench] cleaned up: processes stopped, stream deleted, database dropped');
}
