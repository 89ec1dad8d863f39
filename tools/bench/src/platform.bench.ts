import { setTimeout as sleep } from 'node:timers/promises';
import { expectStatus, offerBody, OffersClient, PortalClient, issuePortalUserToken, request, seedOrganisation } from '@availability/platform-client';
import {
  classifyBenchProcesses,
  cpuPerOperation,
  createTestCertificates,
  measureCpu,
  SmtpSink,
  type SmtpSinkOptions,
  startTestPlatform,
  startTestPostgresServer,
  startTestRedisServer,
  TEST_ADMIN_TOKEN,
  type TestPlatformOptions,
  withoutRootCert,
} from '@availability/testing';
import { type BareAnswerPathCost, bareAnswerPathCost } from './bare-answer-path.js';
import { bareHopCost, type HopCost } from './bare-hop.js';
import { paced } from './paced.js';
import { SteadyClient } from './steady-client.js';
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

/** The processes an answer passes through, in its order, then the infrastructure. */
const ANSWER_PATH = ['offers-api', 'postgres', 'nats', 'webhook-dispatcher', 'example-integrator', 'redis', 'contact-directory', 'notification-service'];

const INTEGRATOR_SECRET = 'bench-integrator-secret-0123456789';

interface Sent {
  key: string;
  /** When the request was sent. */
  sentAt: number;
  /** When its answer arrived: the platform has accepted (committed) it. */
  acceptedAt: number;
}

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
  // The offers name a notify address, so their answers are e-mailed in digests: to a mail server that
  // takes them, as deployed. (Without one every digest failed and was retried, in the measured windows.)
  const mail = await SmtpSink.start(servers.mail);
  defer(() => mail.close());
  const platform = await startTestPlatform(
    ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'],
    { LOG_LEVEL: 'warn', HTTP_REQUEST_LOGS: 'false', INTEGRATOR_SECRET, WEBHOOK_ALLOW_LOOPBACK: 'true', PUSH_TRANSPORT: 'recording', SMTP_URL: mail.url, ...servers.env },
    { natsCluster: settings.natsCluster, ...servers.options },
  );
  defer(() => platform.stop());

  const org = await seedOrganisation(platform.admin, { name: 'Bench Staffing', workers: settings.workersPerOffer });
  const portalToken = await issuePortalUserToken(platform.url('contact-directory'), TEST_ADMIN_TOKEN, org.user.id);
  await new PortalClient(platform.url('contact-directory'), portalToken.token).saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
  for (const [index, worker] of org.workers.entries()) {
    const registered = await request(platform.url('notification-service'), 'PUT', '/worker/devices', {
      body: { token: `bench-device-${index}`, platform: index % 2 ? 'ios' : 'android', appVersion: '1.0.0' },
      headers: { authorization: `Bearer ${worker.token}` },
    });
    expectStatus(registered, 201);
  }
  const sender = new OffersClient(platform.url('offers-api'), org.apiKey);
  // What the platform costs doing nothing (timers, polls, heartbeats): at a steady rate, each answer's
  // share of it is this divided by the rate. Measured after the set-up's own events have settled.
  await sleep(2000, undefined, { signal });
  const stopIdleCpu = measureCpu();
  await sleep(IDLE_SECONDS * 1000, undefined, { signal });
  const idle = cpuPerOperation(await stopIdleCpu(() => classifyBenchProcesses(platform.database.url)), IDLE_SECONDS, ANSWER_PATH);
  log(`the idle platform, CPU ms per second: ${idle ? formatCpu(idle) : 'not measured (no /proc)'}`);
  const workerIds = org.workers.map((w) => w.id);
  const body = offerBody(org.user.id, workerIds);

  // Phase 1: offers → pushes.
  const createOffers = async (seconds: number): Promise<Array<Sent & { offerId: string }>> => {
    const sent = await paced(settings.offerRate, seconds, signal, async () => {
      const sentAt = Date.now();
      const created = await sender.createOffer(body);
      expectStatus(created, 201);
      return { key: created.text, offerId: created.text, sentAt, acceptedAt: Date.now() };
    });
    return sent;
  };
  log(`offers → pushes: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s at ${settings.offerRate} offers/s of ${settings.workersPerOffer} workers`);
  const warmOffers = await createOffers(settings.warmupSeconds);
  await waitForPushes(platform.url('notification-service'), warmOffers.map((o) => o.offerId), settings.workersPerOffer, signal);
  const offers = await createOffers(settings.durationSeconds);
  const pushedAt = await waitForPushes(platform.url('notification-service'), offers.map((o) => o.offerId), settings.workersPerOffer, signal);
  const offerLatencies = offers.map((o) => (pushedAt.get(o.offerId) ?? Number.NaN) - o.sentAt);

  // Phase 2: answers → webhooks, in two steady windows (evenly spaced answers), each after its own
  // warm-up. Each (offer, worker) answers once, on the offers of phase 1.
  const pairs = offers.flatMap((o) => workerIds.map((workerId, index) => ({ offerId: o.offerId, workerId, token: org.workers[index].token })));
  const answerCount = (rate: number, seconds: number) => Math.round(rate * seconds);
  const needed = [settings.answerRate, settings.busyAnswerRate].reduce((sum, rate) => sum + answerCount(rate, settings.warmupSeconds + settings.durationSeconds), 0);
  if (pairs.length < needed) throw new Error(`phase 1 made ${pairs.length} (offer, worker) pairs; ${needed} answers need more offers or workers`);
  let next = 0;
  const client = new SteadyClient();
  defer(() => client.close());
  const answerBody = JSON.stringify({ response: 'applied' });
  const answer = async (rate: number, seconds: number) =>
    paced(rate, seconds, signal, async () => {
      const pair = pairs[next++];
      const sentAt = Date.now();
      const answered = await client.call(`${platform.url('offers-api')}/worker/offers/${pair.offerId}/response`, 'PUT', { authorization: `Bearer ${pair.token}` }, answerBody);
      if (answered.status !== 200) throw new Error(`answer: HTTP ${answered.status}: ${answered.text.slice(0, 500)}`);
      return { key: `${pair.offerId}/${pair.workerId}`, sentAt, acceptedAt: Date.now() };
    });
  const integrator = platform.url('example-integrator');
  const answerWindow = async (rate: number) => {
    log(`answers → webhooks at ${rate}/s: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s measured`);
    await answer(rate, settings.warmupSeconds);
    const before = await waitForWebhooks(integrator, next, signal);
    const stopCpu = measureCpu();
    const answers = await answer(rate, settings.durationSeconds);
    // The last webhooks arrive within milliseconds; the integrator is not polled while CPU is measured.
    await sleep(1_000);
    const usage = await stopCpu(() => classifyBenchProcesses(platform.database.url));
    const { receivedAt, repeats } = await waitForWebhooks(integrator, next, signal);
    const receivedTwice = repeats - before.repeats;
    const cpu = cpuPerOperation(usage, answers.length, ANSWER_PATH);
    const platformCpu = cpu ? Object.entries(cpu).filter(([group]) => group !== 'bench' && group !== 'other' && group !== 'steal').reduce((sum, [, ms]) => sum + ms, 0) : Number.NaN;
    const latency = summarise(answers.map((a) => (receivedAt.get(a.key) ?? Number.NaN) - a.acceptedAt));
    const fromSent = summarise(answers.map((a) => (receivedAt.get(a.key) ?? Number.NaN) - a.sentAt));
    const answerCall = summarise(answers.map((a) => a.acceptedAt - a.sentAt));
    const storedAt = new Map(
      (await platform.events.messages('offers.response.recorded')).map((m) => [`${m.data.offerId as string}/${m.data.workerId as string}`, m.storedAt]),
    );
    const toStream = summarise(answers.map((a) => (storedAt.get(a.key) ?? Number.NaN) - a.sentAt));
    const fromStream = summarise(answers.map((a) => (receivedAt.get(a.key) ?? Number.NaN) - (storedAt.get(a.key) ?? Number.NaN)));
    log(`  the answer call itself p50 ${answerCall.p50} ms p99 ${answerCall.p99} ms; sent → integrator received p50 ${fromSent.p50} ms p99 ${fromSent.p99} ms`);
    log(`  split: sent → stored in JetStream p50 ${toStream.p50} ms p99 ${toStream.p99} ms; stored → integrator received p50 ${fromStream.p50} ms p99 ${fromStream.p99} ms`);
    log(`  CPU ms per answer: ${cpu ? formatCpu(cpu) : 'not measured (no /proc)'}; the platform's processes ${round3(platformCpu)} ms`);
    log(`  webhooks the integrator received again (same webhook-id): ${receivedTwice}`);
    return { rate, answers: answers.length, latency, cpu, platformCpu, receivedTwice };
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
  log(`e-mails the mail server took (answer digests): ${mail.mails.length}`);

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

/** Waits until every offer has all its pushes; returns offer id → when its last push was handed over. */
async function waitForPushes(notificationUrl: string, offerIds: string[], perOffer: number, signal: AbortSignal): Promise<Map<string, number>> {
  const wanted = new Set(offerIds);
  const deadline = Date.now() + 120_000;
  for (;;) {
    signal.throwIfAborted();
    const log = await request<{ pushes: Array<{ offerId: string; at: string }> }>(notificationUrl, 'GET', '/dev/push-log');
    const counts = new Map<string, { count: number; last: number }>();
    for (const push of log.json.pushes) {
      if (!wanted.has(push.offerId)) continue;
      const entry = counts.get(push.offerId) ?? { count: 0, last: 0 };
      entry.count += 1;
      entry.last = Math.max(entry.last, Date.parse(push.at));
      counts.set(push.offerId, entry);
    }
    const done = offerIds.every((id) => (counts.get(id)?.count ?? 0) >= perOffer);
    if (done || Date.now() > deadline) return new Map([...counts].map(([id, entry]) => [id, entry.count >= perOffer ? entry.last : Number.NaN]));
    await sleep(250);
  }
}

function formatCpu(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .map(([group, ms]) => `${group} ${ms}`)
    .join(', ');
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Waits until the integrator holds `count` Worker Offer Responses; returns "offerId/workerId" → when it received it. */
/** When each answer's webhook first arrived (by `offerId/workerId`), and how many webhooks arrived again so far. */
async function waitForWebhooks(integratorUrl: string, count: number, signal: AbortSignal): Promise<{ receivedAt: Map<string, number>; repeats: number }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    signal.throwIfAborted();
    const received = await request<{ duplicates: number; items: Array<{ path: string; body: string; receivedAt: string }> }>(integratorUrl, 'GET', '/received');
    const responses = received.json.items.filter((item) => item.path === '/offer/response');
    if (responses.length >= count || Date.now() > deadline) {
      const receivedAt = new Map(
        responses.map((item) => {
          const body = JSON.parse(item.body) as { offerId: string; workerId: string };
          return [`${body.offerId}/${body.workerId}`, Date.parse(item.receivedAt)];
        }),
      );
      return { receivedAt, repeats: received.json.duplicates };
    }
    await sleep(250);
  }
}

function summarise(latencies: number[]): { p50: number; p90: number; p99: number; max: number; complete: boolean } {
  const complete = latencies.every((value) => Number.isFinite(value));
  const sorted = latencies.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN, complete };
}

/** The settings as the report lists them; the cluster is in the benchmark's name. */
function numericSettings({ natsCluster: _cluster, servers: _servers, ...numbers }: PlatformBenchSettings): Record<string, number> {
  return numbers;
}
