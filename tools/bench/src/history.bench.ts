import { expectStatus, offerBody, request } from '@availability/platform-client';
import { AnswerPlatform, type AnswerWindow, type Latencies, round3, summarise, waitForPushes } from './answer-platform.js';
import { growHistory, type GrownHistory } from './history/grow-history.js';
import type { Defer } from './offers.bench.js';
import { type BenchReport, type CheckFigures, machineInfo } from './report.js';

export interface HistoryBenchSettings {
  /** A year of history at 1 (20 million attempts, 5 million recipients, 10 million notifications); less for a quick look. */
  scale: number;
  durationSeconds: number;
  warmupSeconds: number;
  answerRate: number;
  offerRate: number;
  /** Requests made of each page, one after another, for its p99. */
  pageRequests: number;
}

export const HISTORY_TARGETS = {
  /** The grown database's figure over the young one's, at the steady answer rate. */
  cpuPerAnswerRatio: 1.1,
  answerToWebhookP99Ratio: 1.1,
  pageP99Ms: 50,
  /** The answer path's p99 during a retention pass over the grown database, over its p99 without. */
  duringPruningP99Ratio: 1.5,
};

const WORKERS = 50;
/** Retention runs only when the benchmark asks for it: not within a day of a service's start. */
const NO_PRUNING = { RETENTION_INTERVAL_MS: '86400000' };
/** A pass that goes on for the whole window: a run every second, each class batched for up to ten minutes. */
const PRUNING = { RETENTION_INTERVAL_MS: '1000', RETENTION_RUN_MS: '600000' };
/** The services that prune the logs that grow with answers and offers. */
const PRUNING_SERVICES = ['webhook-dispatcher', 'notification-service'];

interface DatabaseFigures {
  steady: AnswerWindow;
  pages: Record<string, Latencies>;
  grown?: GrownHistory;
  pruning?: { window: AnswerWindow; prunedRows: Record<string, number> };
}

/**
 * The platform on a database grown to a year of a mid-size customer's history (written straight into
 * the tables, nothing pruned: what a deployment that never pruned holds), beside the same platform on
 * a young database, in one run:
 * 1. answers at a steady rate → webhooks: CPU per answer and p99, the grown over the young;
 * 2. the pages people and integrators read most: the delivery log's first page, the worker inbox,
 *    GET /offer/{id} and the portal's offers list, each `pageRequests` times, p99;
 * 3. on the grown database only, the first retention pass (webhook-dispatcher and notification-service
 *    restarted with retention on), answers flowing: the answer path's p99 during it over its p99
 *    without, and the rows it removed meanwhile.
 */
export async function runHistoryBench(settings: HistoryBenchSettings, signal: AbortSignal, defer: Defer): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const log = (message: string) => console.log(`[bench] ${message}`);
  const young = await withPlatform(defer, (steps) => measure('young', settings, signal, steps, log));
  const grown = await withPlatform(defer, (steps) => measure('grown', settings, signal, steps, log));

  const cpuRatio = grown.steady.platformCpu / young.steady.platformCpu;
  const p99Ratio = grown.steady.latency.p99 / young.steady.latency.p99;
  const pruning = grown.pruning;
  const pruningRatio = pruning ? pruning.window.latency.p99 / grown.steady.latency.p99 : Number.NaN;
  const rows = grown.grown?.rows ?? {};
  const checks: CheckFigures[] = [
    {
      name: `CPU per answer at a steady ${settings.answerRate}/s, the grown database over the young`,
      detail: `${round3(cpuRatio)} (grown ${round3(grown.steady.platformCpu)} ms, young ${round3(young.steady.platformCpu)} ms); target ≤ ${HISTORY_TARGETS.cpuPerAnswerRatio}`,
      pass: cpuRatio <= HISTORY_TARGETS.cpuPerAnswerRatio,
    },
    {
      name: `answer accepted → webhook received, p99 at a steady ${settings.answerRate}/s, the grown database over the young`,
      detail: `${round3(p99Ratio)} (grown ${grown.steady.latency.p99} ms, young ${young.steady.latency.p99} ms; p50 ${grown.steady.latency.p50} and ${young.steady.latency.p50} ms); target ≤ ${HISTORY_TARGETS.answerToWebhookP99Ratio}`,
      pass: grown.steady.latency.complete && young.steady.latency.complete && p99Ratio <= HISTORY_TARGETS.answerToWebhookP99Ratio,
    },
    ...Object.entries(grown.pages).map(([page, figures]) => ({
      name: `${page} on the grown database, p99 (${settings.pageRequests} requests)`,
      detail: `p50 ${figures.p50} ms, p99 ${figures.p99} ms (young: p99 ${young.pages[page].p99} ms); target < ${HISTORY_TARGETS.pageP99Ms} ms`,
      pass: figures.complete && figures.p99 < HISTORY_TARGETS.pageP99Ms,
    })),
    {
      name: `answer path p99 during the first retention pass over the grown database, over its p99 without`,
      detail: pruning
        ? `${round3(pruningRatio)} (${pruning.window.latency.p99} ms during, ${grown.steady.latency.p99} ms without); pruned meanwhile: ${formatRows(pruning.prunedRows)}; target ≤ ${HISTORY_TARGETS.duringPruningP99Ratio}`
        : 'not measured',
      pass: pruning !== undefined && pruning.window.latency.complete && pruningRatio <= HISTORY_TARGETS.duringPruningP99Ratio && Object.values(pruning.prunedRows).some((n) => n > 0),
    },
    {
      name: 'each webhook received once (every window)',
      detail: `received again: young ${young.steady.receivedTwice}, grown ${grown.steady.receivedTwice}, during the pass ${pruning?.window.receivedTwice ?? 'not measured'}`,
      pass: young.steady.receivedTwice === 0 && grown.steady.receivedTwice === 0 && (pruning?.window.receivedTwice ?? 0) === 0,
    },
  ];
  log(`the grown database held: ${formatRows(rows)} (written in ${grown.grown?.seconds ?? '?'} s)`);
  for (const check of checks) log(`${check.pass ? 'PASS' : 'MISS'} ${check.name}: ${check.detail}`);
  return {
    benchmark: `history (a year of history${settings.scale === 1 ? '' : ` at scale ${settings.scale}`} beside a young database)`,
    startedAt,
    command: `npm run bench -- history${settings.scale === 1 ? '' : ` --scale=${settings.scale}`}`,
    machine: machineInfo('local', 'local'),
    settings: { ...settings },
    scenarios: [],
    ratios: [],
    checks,
  };
}

/** Runs `phase` with cleanup steps of its own, done when it ends: the next phase has the machine to itself. */
async function withPlatform<T>(defer: Defer, phase: (steps: Defer) => Promise<T>): Promise<T> {
  const steps: Array<() => Promise<unknown>> = [];
  let done = false;
  defer(async () => {
    if (!done) for (const step of steps.reverse()) await step();
  });
  try {
    return await phase((step) => steps.push(step));
  } finally {
    done = true;
    for (const step of steps.reverse()) await step().catch(() => undefined);
  }
}

async function measure(kind: 'young' | 'grown', settings: HistoryBenchSettings, signal: AbortSignal, defer: Defer, log: (message: string) => void): Promise<DatabaseFigures> {
  log(`the ${kind} database: starting all five services`);
  const bench = await AnswerPlatform.start({ workers: WORKERS, env: NO_PRUNING }, defer);
  const { platform } = bench;
  const template = await bench.sender.createOffer(offerBody(bench.org.user.id, bench.workerIds));
  expectStatus(template, 201);
  let grown: GrownHistory | undefined;
  if (kind === 'grown') {
    log(`growing a year of history${settings.scale === 1 ? '' : ` at scale ${settings.scale}`}`);
    const owner = { organisationId: bench.org.organisation.id, userId: bench.org.user.id, workerIds: bench.workerIds, templateOfferId: template.text, integratorUrl: platform.url('example-integrator') };
    grown = await growHistory(platform.database.url, owner, settings.scale, log);
  }
  // Two windows of answers (steady, then during the pass), each with its warm-up, one per (offer, worker).
  const answersNeeded = 2 * settings.answerRate * (settings.warmupSeconds + settings.durationSeconds);
  const offers = await bench.createOffers(settings.offerRate, Math.ceil(answersNeeded / WORKERS / settings.offerRate) + 1, signal);
  await waitForPushes(platform.url('notification-service'), offers.map((offer) => offer.offerId), WORKERS, signal);

  log(`  answers → webhooks at ${settings.answerRate}/s: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s measured`);
  const steady = await bench.answerWindow(settings.answerRate, settings.warmupSeconds, settings.durationSeconds, signal);
  log(`  p50 ${steady.latency.p50} ms, p99 ${steady.latency.p99} ms; CPU per answer ${round3(steady.platformCpu)} ms`);
  const pages = await pageLatencies(bench, offers[0].offerId, settings.pageRequests);
  for (const [page, figures] of Object.entries(pages)) log(`  ${page}: p50 ${figures.p50} ms, p99 ${figures.p99} ms`);
  if (kind === 'young') return { steady, pages };

  log(`  the first retention pass: ${PRUNING_SERVICES.join(' and ')} restarted with retention on, answers at ${settings.answerRate}/s`);
  for (const app of PRUNING_SERVICES) await platform.services[app].restart(PRUNING);
  const window = await bench.answerWindow(settings.answerRate, settings.warmupSeconds, settings.durationSeconds, signal);
  const prunedRows = await prunedSoFar(PRUNING_SERVICES.map((app) => platform.url(app)));
  log(`  during the pass: p50 ${window.latency.p50} ms, p99 ${window.latency.p99} ms; pruned ${formatRows(prunedRows)}`);
  return { steady, pages, grown, pruning: { window, prunedRows } };
}

/** Each page read `count` times, one after another, as its people read it. */
async function pageLatencies(bench: AnswerPlatform, offerId: string, count: number): Promise<Record<string, Latencies>> {
  const { platform } = bench;
  const worker = bench.org.workers[0];
  const pages: Record<string, () => Promise<{ status: number }>> = {
    "the delivery log's first page": () => request(platform.url('webhook-dispatcher'), 'GET', '/portal/webhooks/deliveries', { headers: { authorization: `Bearer ${bench.portalToken}` } }),
    'the worker inbox': () => request(platform.url('offers-api'), 'GET', '/worker/offers', { headers: { authorization: `Bearer ${worker.token}` } }),
    'GET /offer/{id}': () => bench.sender.getOffer(offerId),
    "the portal's offers list": () => request(platform.url('offers-api'), 'GET', '/portal/offers', { headers: { authorization: `Bearer ${bench.portalToken}` } }),
  };
  const figures: Record<string, Latencies> = {};
  for (const [page, read] of Object.entries(pages)) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const at = performance.now();
      const answer = await read();
      times.push(answer.status === 200 ? Math.round((performance.now() - at) * 10) / 10 : Number.NaN);
    }
    figures[page] = summarise(times);
  }
  return figures;
}

/** Rows each class lost to the retention policies so far, summed over the services (their metrics). */
async function prunedSoFar(serviceUrls: string[]): Promise<Record<string, number>> {
  const pruned: Record<string, number> = {};
  for (const url of serviceUrls) {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    for (const match of metrics.matchAll(/^retention_pruned_rows_total\{class="([a-z0-9-]+)"\} (\d+)/gm)) pruned[match[1]] = (pruned[match[1]] ?? 0) + Number(match[2]);
  }
  return pruned;
}

function formatRows(rows: Record<string, number>): string {
  return Object.entries(rows)
    .map(([name, n]) => `${name} ${n.toLocaleString('en-GB')}`)
    .join(', ');
}
