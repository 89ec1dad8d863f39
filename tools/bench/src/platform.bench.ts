import { setTimeout as sleep } from 'node:timers/promises';
import {
  classifyBenchProcesses,
  cpuPerOperation,
  createTestCertificates,
  measureCpu,
  type SmtpSinkOptions,
  startTestPostgresServer,
  startTestRedisServer,
  type TestPlatformOptions,
  withoutRootCert,
} from '@availability/testing';
import { ANSWER_PATH, AnswerPlatform, type AnswerWindow, formatCpu, round3, summarise, waitForPushes } from './answer-platform.js';
import { type BareAnswerPathCost, bareAnswerPathCost } from './bare-answer-path.js';
import { bareHopCost, type HopCost } from './bare-hop.js';
import type { Defer } from './offers.bench.js';
import { type BenchReport, type CheckFigures, machineInfo } from './report.js';

export interface PlatformBenchSettings {
  durationSeconds: number;
  warmupSeconds: number;
  /** Worker answers a second in the webhook phase's first window, and in its busy window. */
  answerRate: number;
  busyAnswerRate: number;
  /** Offers a second in the push phase. */
  offerRate: number;
  /** Workers (each with one phone) per offer. */
  workersPerOffer: number;
  /** On a three-node NATS cluster, the stream and consumers replicated three times. */
  natsCluster: boolean;
  /**
   * The platform's PostgreSQL, NATS and Redis: the machine's shared ones (`shared`), servers of the
   * run's own (`own`), or the same own servers taking TLS connections only, with a CA made for the run
   * and addressed as `localhost` (`tls`). `own` is what `tls` compares against: the same servers and
   * settings (commits wait for the disk, as on the shared server), without TLS.
   */
  servers: 'shared' | 'own' | 'tls';
}

export const PLATFORM_TARGETS = {
  offerToPushesP99Ms: 500,
  /** At the steady answer rate: CPU of the whole machine per answer (the benchmark's own excluded), and latency. */
  cpuMsPerAnswer: 4,
  answerToWebhookP50Ms: 10,
  answerToWebhookP99Ms: 60,
  /** At the busy answer rate. */
  busyAnswerToWebhookP99Ms: 150,
};

/** How long the idle platform is measured before the load starts. */
const IDLE_SECONDS = 5;

/**
 * The whole stack, every service its own process as deployed:
 * 1. offers created at a fixed rate, each to N workers with a phone: offer POSTed → every push handed
 *    to the (recording) push transport, per offer (its last push) — offers-api, outbox, JetStream,
 *    notification-service, BullMQ;
 * 2. worker answers, evenly spaced, at a steady rate and then at a busy one: answer sent → the
 *    integrator received the signed Worker Offer Response webhook — offers-api, outbox, JetStream,
 *    webhook-dispatcher, HTTP, signature verification in the example integrator — with the machine's
 *    CPU per answer billed to each process (the benchmark's own load and receivers shown apart).
 * Offers are timed from when the POST was sent; answers from when the answer was accepted (its 200
 * arrived), as the target is stated, and also from when it was sent. The end is the time the receiving
 * process recorded (same machine, same clock).
 */
export async function runPlatformBench(settings: PlatformBenchSettings, signal: AbortSignal, defer: Defer): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const log = (message: string) => console.log(`[bench] ${message}`);

  log(`starting all five services on a fresh database and NATS namespace${settings.natsCluster ? ' (three-node cluster, replicas 3)' : ''}${SERVERS_TEXT[settings.servers]}`);
  const servers = await startServers(settings.servers, defer);
  const bench = await AnswerPlatform.start({ workers: settings.workersPerOffer, env: servers.env, options: { natsCluster: settings.natsCluster, ...servers.options }, mail: servers.mail }, defer);
  const { platform } = bench;
  // What the platform costs doing nothing (timers, polls, heartbeats): at a steady rate, each answer's
  // share of it is this divided by the rate. Measured after the set-up's own events have settled.
  await sleep(2000, undefined, { signal });
  const stopIdleCpu = measureCpu();
  await sleep(IDLE_SECONDS * 1000, undefined, { signal });
  const idle = cpuPerOperation(await stopIdleCpu(() => classifyBenchProcesses(platform.database.url)), IDLE_SECONDS, ANSWER_PATH);
  log(`the idle platform, CPU ms per second: ${idle ? formatCpu(idle) : 'not measured (no /proc)'}`);

  // Phase 1: offers → pushes.
  log(`offers → pushes: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s at ${settings.offerRate} offers/s of ${settings.workersPerOffer} workers`);
  const warmOffers = await bench.createOffers(settings.offerRate, settings.warmupSeconds, signal);
  await waitForPushes(platform.url('notification-service'), warmOffers.map((o) => o.offerId), settings.workersPerOffer, signal);
  const offers = await bench.createOffers(settings.offerRate, settings.durationSeconds, signal);
  const pushedAt = await waitForPushes(platform.url('notification-service'), offers.map((o) => o.offerId), settings.workersPerOffer, signal);
  const offerLatencies = offers.map((o) => (pushedAt.get(o.offerId) ?? Number.NaN) - o.sentAt);

  // Phase 2: answers → webhooks, in two steady windows (evenly spaced answers), each after its own
  // warm-up. Each (offer, worker) answers once, on the offers of phase 1.
  const needed = [settings.answerRate, settings.busyAnswerRate].reduce((sum, rate) => sum + Math.round(rate * (settings.warmupSeconds + settings.durationSeconds)), 0);
  if (bench.answersLeft < needed) throw new Error(`phase 1 made ${bench.answersLeft} (offer, worker) pairs; ${needed} answers need more offers or workers`);
  const answerWindow = async (rate: number): Promise<AnswerWindow> => {
    log(`answers → webhooks at ${rate}/s: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s measured`);
    const window = await bench.answerWindow(rate, settings.warmupSeconds, settings.durationSeconds, signal);
    const storedAt = new Map(
      (await platform.events.messages('offers.response.recorded')).map((m) => [`${m.data.offerId as string}/${m.data.workerId as string}`, m.storedAt]),
    );
    log(`  the answer call itself p50 ${window.answerCall.p50} ms p99 ${window.answerCall.p99} ms; sent → integrator received p50 ${window.fromSent.p50} ms p99 ${window.fromSent.p99} ms`);
    const toStream = summarise(window.sent.map((a) => (storedAt.get(a.key) ?? Number.NaN) - a.sentAt));
    const fromStream = summarise(window.sent.map((a) => (window.receivedAt.get(a.key) ?? Number.NaN) - (storedAt.get(a.key) ?? Number.NaN)));
    log(`  split: sent → stored in JetStream p50 ${toStream.p50} ms p99 ${toStream.p99} ms; stored → integrator received p50 ${fromStream.p50} ms p99 ${fromStream.p99} ms`);
    log(`  CPU ms per answer: ${window.cpu ? formatCpu(window.cpu) : 'not measured (no /proc)'}; the platform's processes ${round3(window.platformCpu)} ms`);
    log(`  webhooks the integrator received again (same webhook-id): ${window.receivedTwice}`);
    return window;
  };
  const steady = await answerWindow(settings.answerRate);
  const busy = await answerWindow(settings.busyAnswerRate);
  // The yardstick: one bare HTTP hop at each rate, after the platform's windows, on the same machine.
  const hops = [await bareHopCost(settings.answerRate, settings.durationSeconds, signal), await bareHopCost(settings.busyAnswerRate, settings.durationSeconds, signal)];
  for (const hop of hops) if (hop) log(`  yardstick: one bare node:http hop at ${hop.rate}/s costs ${hopText(hop)}`);
  // The second yardstick: the same path with nothing of the platform's own code on it, on the same servers.
  const barePaths = [
    await bareAnswerPathCost(settings.answerRate, settings.durationSeconds, signal, servers.options.adminDatabaseUrl),
    await bareAnswerPathCost(settings.busyAnswerRate, settings.durationSeconds, signal, servers.options.adminDatabaseUrl),
  ];
  for (const bare of barePaths) if (bare) log(`  yardstick: the bare answer path at ${bare.rate}/s costs ${barePathText(bare)}`);
  log(`e-mails the mail server took (answer digests): ${bench.mail.mails.length}`);

  const offersFig = summarise(offerLatencies);
  const checks: CheckFigures[] = [
    {
      name: `offer created → all ${settings.workersPerOffer} pushes handed to the transport, p99 (${offers.length} offers at ${settings.offerRate}/s)`,
      detail: `p50 ${offersFig.p50} ms, p90 ${offersFig.p90} ms, p99 ${offersFig.p99} ms, max ${offersFig.max} ms; ${offers.length * settings.workersPerOffer} pushes; target p99 < ${PLATFORM_TARGETS.offerToPushesP99Ms} ms`,
      pass: offersFig.complete && offersFig.p99 < PLATFORM_TARGETS.offerToPushesP99Ms,
    },
    {
      name: `machine CPU per answer, the platform's processes (${steady.answers} answers at a steady ${steady.rate}/s)`,
      detail: `${round3(steady.platformCpu)} ms (${steady.cpu ? formatCpu(steady.cpu) : 'not measured'}); target ≤ ${PLATFORM_TARGETS.cpuMsPerAnswer} ms; one bare HTTP hop at this rate: ${hops[0] ? hopText(hops[0]) : 'not measured'}; the bare answer path at this rate: ${barePaths[0] ? `${barePathText(barePaths[0])}, the platform ${round3(steady.platformCpu / barePaths[0].totalMs)} times that` : 'not measured'}`,
      pass: steady.platformCpu <= PLATFORM_TARGETS.cpuMsPerAnswer,
    },
    {
      name: `worker answer accepted → integrator received the webhook (${steady.answers} answers at a steady ${steady.rate}/s)`,
      detail: `p50 ${steady.latency.p50} ms, p90 ${steady.latency.p90} ms, p99 ${steady.latency.p99} ms, max ${steady.latency.max} ms; target p50 < ${PLATFORM_TARGETS.answerToWebhookP50Ms} ms, p99 < ${PLATFORM_TARGETS.answerToWebhookP99Ms} ms`,
      pass: steady.latency.complete && steady.latency.p50 < PLATFORM_TARGETS.answerToWebhookP50Ms && steady.latency.p99 < PLATFORM_TARGETS.answerToWebhookP99Ms,
    },
    {
      name: `worker answer accepted → integrator received the webhook (${busy.answers} answers at a steady ${busy.rate}/s)`,
      detail: `p50 ${busy.latency.p50} ms, p99 ${busy.latency.p99} ms, max ${busy.latency.max} ms; CPU per answer ${round3(busy.platformCpu)} ms (the bare answer path ${barePaths[1] ? `${barePaths[1].totalMs} ms` : 'not measured'}); target p99 < ${PLATFORM_TARGETS.busyAnswerToWebhookP99Ms} ms`,
      pass: busy.latency.complete && busy.latency.p99 < PLATFORM_TARGETS.busyAnswerToWebhookP99Ms,
    },
    {
      // Nothing failed or crashed here: at-least-once allows a repeat, a healthy platform makes none.
      name: `each webhook received once (${steady.answers + busy.answers} answers at ${steady.rate}/s and ${busy.rate}/s)`,
      detail: `received again: ${steady.receivedTwice} at ${steady.rate}/s, ${busy.receivedTwice} at ${busy.rate}/s`,
      pass: steady.receivedTwice === 0 && busy.receivedTwice === 0,
    },
  ];
  for (const check of checks) log(`${check.pass ? 'PASS' : 'MISS'} ${check.name}: ${check.detail}`);

  return {
    benchmark: `platform (end to end${settings.natsCluster ? ', three-node NATS cluster, replicas 3' : ''}${SERVERS_TEXT[settings.servers]})`,
    startedAt,
    command: `npm run bench -- platform${settings.natsCluster ? ' --cluster' : ''}${settings.servers === 'shared' ? '' : ` --servers=${settings.servers}`}`,
    machine: machineInfo('local', 'local'),
    settings: numericSettings(settings),
    scenarios: [],
    ratios: [],
    checks,
  };
}

const SERVERS_TEXT: Record<PlatformBenchSettings['servers'], string> = {
  shared: '',
  own: ', its own PostgreSQL and Redis',
  tls: ', its own PostgreSQL, NATS and Redis over TLS, e-mail over STARTTLS',
};

/** With `own` or `tls`: the run's own PostgreSQL and Redis (and for `tls`, a NATS server taking TLS only), stopped after the run. */
/** The servers the platform runs on, the settings that reach them, and how its mail relay speaks. */
async function startServers(servers: PlatformBenchSettings['servers'], defer: Defer): Promise<{ env: Record<string, string>; options: TestPlatformOptions; mail: SmtpSinkOptions }> {
  if (servers === 'shared') return { env: {}, options: {}, mail: {} };
  if (servers === 'own') {
    const [postgres, redis] = await Promise.all([startTestPostgresServer({ durable: true }), startTestRedisServer()]);
    defer(() => Promise.all([postgres.stop(), redis.stop()]));
    return { env: { REDIS_URL: redis.url }, options: { adminDatabaseUrl: postgres.url }, mail: {} };
  }
  const certificates = await createTestCertificates();
  defer(() => certificates.remove());
  const [postgres, redis] = await Promise.all([
    startTestPostgresServer({ durable: true, tls: { certificate: certificates.localhost, caFile: certificates.caFile } }),
    startTestRedisServer({ tls: certificates }),
  ]);
  defer(() => Promise.all([postgres.stop(), redis.stop()]));
  return {
    env: { DATABASE_CA_FILE: certificates.caFile, REDIS_URL: redis.url, REDIS_CA_FILE: certificates.caFile, SMTP_CA_FILE: certificates.caFile },
    // The services are given the CA as DATABASE_CA_FILE, not in the URL (which they refuse).
    options: { adminDatabaseUrl: postgres.url, serviceDatabaseUrl: withoutRootCert, natsTls: certificates },
    // A relay as deployments have one: STARTTLS, then AUTH.
    mail: { tls: { certificate: certificates.localhost, mode: 'starttls' }, credentials: { user: 'platform', pass: 'bench-relay-password' } },
  };
}

function barePathText(bare: BareAnswerPathCost): string {
  return `${bare.totalMs} ms of CPU (${Object.entries(bare.perProcess).map(([part, ms]) => `${part} ${ms}`).join(', ')})`;
}

function hopText(hop: HopCost): string {
  return `${round3(hop.serverMs + hop.clientMs)} ms of CPU (server ${hop.serverMs}, client ${hop.clientMs})`;
}

/** The settings as the report lists them; the cluster is in the benchmark's name. */
function numericSettings({ natsCluster: _cluster, servers: _servers, ...numbers }: PlatformBenchSettings): Record<string, number> {
  return numbers;
}
