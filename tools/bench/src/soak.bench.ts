import { setTimeout as sleep } from 'node:timers/promises';
import { request } from '@availability/platform-client';
import { AnswerPlatform, round3 } from './answer-platform.js';
import type { Defer } from './offers.bench.js';
import { type BenchReport, type CheckFigures, machineInfo } from './report.js';
import { overdueClasses, type Series, type SoakSample, soakSeries } from './soak/soak-figures.js';
import { SoakSampler } from './soak/soak-sampler.js';

export interface SoakSettings {
  minutes: number;
  answerRate: number;
  /** How long the event stream keeps events; every log that recognises events keeps 2.5 times this. */
  streamMinutes: number;
  sampleSeconds: number;
}

export const SOAK_TARGETS = {
  /** Growth per ten minutes of a service's memory, a table's rows, the stream or Redis, over its mean. */
  growthPerTenMinutes: 0.05,
  /** Beyond its keep period and one pruning interval, what a class's oldest row may be older by. */
  pruningSlackSeconds: 30,
};

const WORKERS = 50;
const RETENTION_INTERVAL_MS = 10_000;
const SERVICES = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'];

/** Retention in minutes, so the logs cycle many times in the soak; bounded queues and integrator memory. */
export function soakEnvironment(streamMinutes: number): Record<string, string> {
  const days = (minutes: number) => String(minutes / 1440);
  const records = days(streamMinutes * 2.5);
  return {
    EVENTS_STREAM_MAX_AGE_DAYS: days(streamMinutes),
    WEBHOOK_DELIVERY_RETENTION_DAYS: records,
    WORKER_NOTIFICATION_RETENTION_DAYS: records,
    PUSH_LOG_RETENTION_DAYS: records,
    ANSWER_RETENTION_DAYS: records,
    OUTBOX_RETENTION_HOURS: String(streamMinutes / 60),
    RETENTION_INTERVAL_MS: String(RETENTION_INTERVAL_MS),
    QUEUE_COMPLETED_JOBS_KEPT: '1000',
    QUEUE_FAILED_JOBS_KEPT: '1000',
    INTEGRATOR_RECEIVED_CAPACITY: '5000',
    INTEGRATOR_DEDUP_CAPACITY: '50000',
  };
}

export interface SoakResult {
  samples: SoakSample[];
  answers: number;
  /** Answers whose webhook never arrived, and webhooks that arrived again. */
  missing: number;
  repeats: number;
  overdue: string[];
  series: ReturnType<typeof soakSeries>;
}

/**
 * The whole platform for `minutes` at a steady answer rate, with offers (each to 50 workers, so as
 * many pushes as answers) alongside, its logs kept minutes so retention cycles many times. Samples
 * memory, rows, the stream and Redis every `sampleSeconds`, and collects every webhook.
 */
export async function soak(settings: SoakSettings, signal: AbortSignal, defer: Defer, log: (message: string) => void = () => undefined): Promise<SoakResult> {
  const bench = await AnswerPlatform.start({ workers: WORKERS, env: soakEnvironment(settings.streamMinutes) }, defer);
  const { platform } = bench;
  const urls = Object.fromEntries(SERVICES.map((app) => [app, platform.url(app)]));
  const sampler = await SoakSampler.start(urls, platform.database.url, platform.env.REDIS_URL, platform.env.QUEUE_PREFIX);
  defer(() => sampler.close());
  const seconds = settings.minutes * 60;
  const offerRate = settings.answerRate / WORKERS;
  log(`soak: ${settings.minutes} min at ${settings.answerRate} answers/s and ${offerRate} offers/s to ${WORKERS} workers; the stream keeps ${settings.streamMinutes} min`);

  const webhooks = new WebhookTally(platform.url('example-integrator'));
  const started = Date.now();
  // Offers lead the answers by a few seconds, so an answer always has an (offer, worker) pair to answer.
  const offers = bench.createOffers(offerRate, seconds + 10, signal);
  await sleep(5_000, undefined, { signal });
  const load = bench.answer(settings.answerRate, seconds, signal);
  const samples: SoakSample[] = [];
  const sampling = (async () => {
    let settled = false;
    void load.finally(() => (settled = true)).catch(() => undefined);
    while (!settled) {
      await sleep(settings.sampleSeconds * 1000, undefined, { signal });
      samples.push(await sampler.sample(Date.now() - started));
      await webhooks.collect();
      // The recording push transport keeps what it was handed: forgotten, so it stays bounded.
      await request(platform.url('notification-service'), 'DELETE', '/dev/push-log');
      const last = samples.at(-1) as SoakSample;
      if (samples.length % 6 === 0) log(`  ${Math.round(last.at / 1000)} s: ${webhooks.received} webhooks, rows ${JSON.stringify(last.rows)}`);
    }
  })();
  const answered = await load;
  await Promise.all([offers, sampling]);
  const missing = await webhooks.waitFor(answered.map((answer) => answer.key), signal);
  const keepSeconds = await sampler.keepSeconds();
  const cycled = samples.filter((sample) => sample.at / 1000 >= settings.streamMinutes * 2.5 * 60 + RETENTION_INTERVAL_MS / 1000);
  return {
    samples,
    answers: answered.length,
    missing,
    repeats: webhooks.repeats,
    overdue: overdueClasses(samples, keepSeconds, RETENTION_INTERVAL_MS / 1000, SOAK_TARGETS.pruningSlackSeconds),
    series: soakSeries(cycled),
  };
}

/** Every Worker Offer Response the example integrator received, by (offer, worker), read as it goes (it keeps the latest few thousand). */
class WebhookTally {
  private readonly seen = new Set<string>();
  repeats = 0;

  constructor(private readonly integratorUrl: string) {}

  get received(): number {
    return this.seen.size;
  }

  async collect(): Promise<void> {
    const answer = await request<{ duplicates: number; items: Array<{ path: string; body: string }> }>(this.integratorUrl, 'GET', '/received');
    for (const item of answer.json.items) {
      if (item.path !== '/offer/response') continue;
      const body = JSON.parse(item.body) as { offerId: string; workerId: string };
      this.seen.add(`${body.offerId}/${body.workerId}`);
    }
    this.repeats = answer.json.duplicates;
  }

  /** How many of `keys` never arrived, after waiting up to a minute for the last ones. */
  async waitFor(keys: string[], signal: AbortSignal): Promise<number> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      await this.collect();
      const missing = keys.filter((key) => !this.seen.has(key)).length;
      if (missing === 0 || Date.now() > deadline) return missing;
      await sleep(1_000, undefined, { signal });
    }
  }
}

/** `npm run bench -- soak [--minutes=30 --answer-rate=100]`: the figures and checks of one soak. */
export async function runSoakBench(settings: SoakSettings, signal: AbortSignal, defer: Defer): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const log = (message: string) => console.log(`[bench] ${message}`);
  const result = await soak(settings, signal, defer, log);
  const flat = (series: Series[]) => series.filter((s) => !(s.growth <= SOAK_TARGETS.growthPerTenMinutes));
  const describe = (series: Series[]) => series.map((s) => `${s.name} ${round3(s.growth)} (${formatAmount(s.first)} → ${formatAmount(s.last)})`).join('; ');
  const { memory, rows, stream, redis } = result.series;
  const checks: CheckFigures[] = [
    {
      name: 'every webhook received once',
      detail: `${result.answers} answers; ${result.missing} never arrived, ${result.repeats} arrived again`,
      pass: result.missing === 0 && result.repeats === 0,
    },
    {
      name: `every retention class's oldest row within its keep period, one ${RETENTION_INTERVAL_MS / 1000} s interval and ${SOAK_TARGETS.pruningSlackSeconds} s`,
      detail: result.overdue.length === 0 ? 'all within' : result.overdue.join('; '),
      pass: result.overdue.length === 0,
    },
    ...[
      ['every service’s RSS and heap', memory],
      ['the growing tables’ rows', rows],
      ['the event stream’s bytes', [stream]],
      ['Redis keys and bytes (the platform’s prefix)', redis],
    ].map(([name, series]) => ({
      name: `${name as string}: growth per 10 minutes over the mean, once the logs have cycled`,
      detail: `${describe(series as Series[])}; target ≤ ${SOAK_TARGETS.growthPerTenMinutes}`,
      pass: (series as Series[]).length > 0 && flat(series as Series[]).length === 0,
    })),
  ];
  for (const check of checks) log(`${check.pass ? 'PASS' : 'MISS'} ${check.name}: ${check.detail}`);
  return {
    benchmark: `soak (${settings.minutes} minutes at ${settings.answerRate} answers/s, logs kept minutes)`,
    startedAt,
    command: `npm run bench -- soak --minutes=${settings.minutes} --answer-rate=${settings.answerRate}`,
    machine: machineInfo('local', 'local'),
    settings: { ...settings },
    scenarios: [],
    ratios: [],
    checks,
  };
}

function formatAmount(value: number): string {
  return value >= 1_048_576 ? `${round3(value / 1_048_576)} MiB` : String(value);
}
