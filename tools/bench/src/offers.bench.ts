import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventSubject } from '@availability/contracts';
import { expectStatus, offerBody, OffersClient, seedOrganisation } from '@availability/platform-client';
import {
  type Classify,
  type CpuUsage,
  measureCpu,
  otherDatabaseBackends,
  queryDatabase,
  serviceAppOf,
  startTestPlatform,
} from '@availability/testing';
import { type LoadOptions, type LoadResult, runLoad } from './load.js';
import { NodeProcess } from './node-process.js';
import { checkEvents, drainOutbox } from './offers.events.js';
import { type BenchReport, clean, type CoresUsed, machineInfo, type RatioFigures, type ScenarioFigures } from './report.js';

export interface OffersBenchSettings {
  durationSeconds: number;
  warmupSeconds: number;
  postConnections: number;
  getConnections: number;
  fixedRate: number;
  fixedRateConnections: number;
  /** Offers GET cycles through. */
  offers: number;
  /** Rounds of offers-api and the bare server measured back to back; the ratio is the median round's. */
  rounds: number;
  workers: number;
  /** On a three-node NATS cluster, the stream replicated three times. */
  natsCluster: boolean;
}

/** The baseline's own copy of offers-api's tables, so that offers-api's relay never sees its rows. */
const BARE_SCHEMA = 'bare';
const BARE_TABLES_SQL = `
CREATE SCHEMA ${BARE_SCHEMA};
CREATE TABLE ${BARE_SCHEMA}.offer (LIKE offers.offer INCLUDING ALL);
CREATE TABLE ${BARE_SCHEMA}.recipient (LIKE offers.recipient INCLUDING ALL);
CREATE TABLE ${BARE_SCHEMA}.outbox (LIKE offers.outbox INCLUDING ALL)`;
const VACUUM_SQL = `VACUUM (ANALYZE) offers.offer, offers.recipient, offers.outbox, ${BARE_SCHEMA}.offer, ${BARE_SCHEMA}.recipient, ${BARE_SCHEMA}.outbox`;

export const OFFERS_TARGETS = { postPerSecond: 1000, getPerSecond: 4000, fixedRateP99Ms: 50, minimumRatio: 0.6 };

/** Registers a clean-up step; the caller runs them in reverse order, also on failure or Ctrl-C. */
export type Defer = (step: () => Promise<unknown>) => void;

/**
 * offers-api as deployed (own process, contact-directory beside it, outbox relay publishing to
 * JetStream) against a bare Fastify + pg server running the same SQL on the same Postgres.
 *
 * Both run side by side and are measured in turns, `rounds` times each (offers-api first in odd
 * rounds, the baseline first in even ones): the machine's speed drifts by a fifth within minutes,
 * and a ratio of two phases measured far apart measured the drift. Each round's ratio pairs two
 * phases measured next to each other; the report gives the median round. The baseline writes its
 * offers into its own copy of the tables (schema `bare`), so offers-api's relay never publishes
 * its outbox rows (that would bill our relay to the baseline) and the event checks count ours only.
 */
export async function runOffersBench(settings: OffersBenchSettings, signal: AbortSignal, defer: Defer): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const log = (message: string) => console.log(`[bench] ${message}`);

  log(`starting contact-directory and offers-api on a fresh database and NATS namespace${settings.natsCluster ? ' (three-node cluster, replicas 3)' : ''}`);
  const platform = await startTestPlatform(['contact-directory', 'offers-api'], { LOG_LEVEL: 'warn', HTTP_REQUEST_LOGS: 'false' }, { natsCluster: settings.natsCluster });
  defer(() => platform.stop());
  const databaseUrl = platform.database.url;
  const nc = await platform.events.connect();
  defer(() => nc.close());
  const jsm = await jetstreamManager(nc);

  const seeded = await seedOrganisation(platform.admin, { name: 'Bench', workers: settings.workers });
  const workerIds = seeded.workers.map((w) => w.id);
  const offersUrl = platform.url('offers-api');
  const auth = { authorization: `Bearer ${seeded.apiKey}` };
  const body = JSON.stringify(offerBody(seeded.user.id, workerIds));
  const post = { method: 'POST', paths: ['/offer'], headers: { ...auth, 'content-type': 'application/json' }, body } as const;

  log(`creating ${settings.offers} offers of ${settings.workers} recipients to read`);
  const offerIds = await createOffers(new OffersClient(offersUrl, seeded.apiKey), seeded.user.id, workerIds, settings.offers);
  const get = { method: 'GET', paths: offerIds.map((id) => `/offer/${id}`), headers: auth } as const;

  log('starting the bare Fastify + pg baseline beside it, writing to its own copy of the tables');
  await queryDatabase(databaseUrl, BARE_TABLES_SQL);
  const baseline = await NodeProcess.start('dist/tools/bench/src/baseline-server.js', {
    DATABASE_URL: databaseUrl,
    ORGANISATION_ID: seeded.organisation.id,
    WORKER_NAMES: JSON.stringify(Object.fromEntries(seeded.workers.map((w) => [w.id, w.name]))),
    OFFERS_SCHEMA: BARE_SCHEMA,
  });
  defer(() => baseline.stop());

  const measure = async (scenario: string, baseUrl: string, load: Omit<LoadOptions, 'baseUrl' | 'durationSeconds' | 'signal'>, warmupSeconds: number) => {
    signal.throwIfAborted();
    // No phase pays for the previous one: its dead tuples (autovacuum would run mid-phase) and dirty pages.
    await queryDatabase(databaseUrl, VACUUM_SQL);
    await queryDatabase(databaseUrl, 'CHECKPOINT');
    log(`${scenario}: ${warmupSeconds > 0 ? `warm-up ${warmupSeconds}s, then ` : ''}${settings.durationSeconds}s`);
    const warmup = warmupSeconds > 0 ? await runLoad({ ...load, baseUrl, durationSeconds: warmupSeconds, signal }) : undefined;
    if (warmup && !clean(warmup)) log(`!!! ${scenario}: errors during warm-up: ${JSON.stringify(warmup.statusCodes)}, ${warmup.errors} socket errors`);
    signal.throwIfAborted();
    const stopCpu = measureCpu();
    const result = await runLoad({ ...load, baseUrl, durationSeconds: settings.durationSeconds, signal });
    const cpu = coresUsed(await stopCpu(() => classifyProcesses(databaseUrl)));
    log(`${scenario}: ${result.requestsPerSecond} req/s, p99 ${result.latencyMs.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
    signal.throwIfAborted();
    return { warmup, result, cpu };
  };
  type Phase = Awaited<ReturnType<typeof measure>>;

  /** offers-api and the baseline in turns; after each of offers-api's POST phases the relay drains its backlog. */
  const inTurns = async (name: string, load: Omit<LoadOptions, 'baseUrl' | 'durationSeconds' | 'signal'>, afterOurs?: () => Promise<void>) => {
    const rounds: Array<{ ours: Phase; bare: Phase }> = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const warmup = round === 1 ? settings.warmupSeconds : 0;
      const runOurs = async () => {
        const phase = await measure(`${name} offers-api (round ${round})`, offersUrl, load, warmup);
        await afterOurs?.();
        return phase;
      };
      const runBare = () => measure(`${name} bare (round ${round})`, baseline.url, load, warmup);
      const ours = round % 2 === 1 ? await runOurs() : undefined;
      const bare = await runBare();
      rounds.push({ ours: ours ?? (await runOurs()), bare });
    }
    return rounds;
  };

  const relayLags: number[] = [];
  const drainAfterPost = async () => {
    relayLags.push(await drainOutbox(databaseUrl));
  };
  const postRounds = await inTurns('POST /offer', { ...post, connections: settings.postConnections }, drainAfterPost);
  const getRounds = await inTurns('GET /offer/{id}', { ...get, connections: settings.getConnections });
  const fixed = await measure(
    `GET /offer/{id} offers-api @${settings.fixedRate}/s`,
    offersUrl,
    { ...get, connections: settings.fixedRateConnections, overallRate: settings.fixedRate },
    settings.warmupSeconds,
  );

  const postMedian = medianRound(postRounds);
  const getMedian = medianRound(getRounds);
  const scenarios: ScenarioFigures[] = [
    target('POST /offer offers-api', postMedian.ours, `>= ${OFFERS_TARGETS.postPerSecond} req/s`, (r) => r.requestsPerSecond >= OFFERS_TARGETS.postPerSecond),
    target('GET /offer/{id} offers-api', getMedian.ours, `>= ${OFFERS_TARGETS.getPerSecond} req/s`, (r) => r.requestsPerSecond >= OFFERS_TARGETS.getPerSecond),
    target(`GET /offer/{id} offers-api @${settings.fixedRate}/s`, fixed, `p99 < ${OFFERS_TARGETS.fixedRateP99Ms} ms`, (r) => r.latencyMs.p99 < OFFERS_TARGETS.fixedRateP99Ms),
    { scenario: 'POST /offer bare', load: postMedian.bare.result, cpu: postMedian.bare.cpu },
    { scenario: 'GET /offer/{id} bare', load: getMedian.bare.result, cpu: getMedian.bare.cpu },
  ];

  const ourPhases = postRounds.map((round) => round.ours);
  const checks = await checkEvents({
    databaseUrl,
    jsm,
    stream: platform.events.stream,
    subject: `${platform.events.prefix}${EventSubject.OfferCreated}`,
    acceptedPosts: offerIds.length + ourPhases.reduce((sum, phase) => sum + (phase.warmup?.ok ?? 0) + phase.result.ok, 0),
    // autocannon drops the requests in flight when a run ends; the server may still have stored them.
    inFlightAtStop: ourPhases.reduce((sum, phase) => sum + (phase.warmup ? 2 : 1), 0) * settings.postConnections,
    workers: settings.workers,
  });
  const relayLagMs = Math.max(...relayLags);
  checks.unshift({ name: 'Outbox relay kept up', detail: `backlog drained at most ${relayLagMs} ms after a POST phase ended`, pass: relayLagMs < 5_000 });

  const ratios = [ratio('POST /offer', postRounds), ratio('GET /offer/{id}', getRounds)];
  const [{ server_version: postgres }] = await queryDatabase<{ server_version: string }>(databaseUrl, 'SHOW server_version');
  return {
    benchmark: settings.natsCluster ? 'offers (three-node NATS cluster, replicas 3)' : 'offers',
    startedAt,
    command: ['npm run bench -- offers', ...process.argv.slice(2).filter((arg) => arg !== 'offers')].join(' '),
    machine: machineInfo(postgres, nc.info?.version ?? 'unknown'),
    settings: numericSettings(settings),
    scenarios,
    ratios,
    checks,
  };
}

function target(
  scenario: string,
  { result, cpu }: { result: LoadResult; cpu?: CoresUsed },
  description: string,
  met: (load: LoadResult) => boolean,
): ScenarioFigures {
  return { scenario, load: result, cpu, target: { description, pass: clean(result) && met(result) } };
}

interface Round {
  ours: { result: LoadResult; cpu?: CoresUsed };
  bare: { result: LoadResult; cpu?: CoresUsed };
}

const roundRatio = ({ ours, bare }: Round) => (bare.result.requestsPerSecond > 0 ? ours.result.requestsPerSecond / bare.result.requestsPerSecond : 0);

/** The round whose ratio is the median (the lower middle one of an even count). */
function medianRound<R extends Round>(rounds: R[]): R {
  const sorted = [...rounds].sort((a, b) => roundRatio(a) - roundRatio(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function ratio(name: string, rounds: Round[]): RatioFigures {
  const median = medianRound(rounds);
  const value = roundRatio(median);
  return {
    name,
    ours: median.ours.result.requestsPerSecond,
    bare: median.bare.result.requestsPerSecond,
    ratio: Math.round(value * 100) / 100,
    rounds: rounds.map((round) => Math.round(roundRatio(round) * 100) / 100),
    minimum: OFFERS_TARGETS.minimumRatio,
    pass: rounds.every((round) => clean(round.ours.result) && clean(round.bare.result)) && value >= OFFERS_TARGETS.minimumRatio,
  };
}

/**
 * The offers GET reads, created through offers-api itself; each is read back once to check its shape.
 * The first goes alone so the directory answers once and the rest hit offers-api's caches.
 */
async function createOffers(client: OffersClient, userId: string, workerIds: string[], count: number): Promise<string[]> {
  const createOne = async () => {
    const id = expectStatus(await withRetry(() => client.createOffer(offerBody(userId, workerIds))), 201).text;
    const offer = expectStatus(await client.getOffer(id), 200).json;
    if (offer.recipients.length !== workerIds.length) throw new Error(`offer ${id} has ${offer.recipients.length} recipients`);
    return id;
  };
  const ids = [await createOne()];
  while (ids.length < count) ids.push(...(await Promise.all(Array.from({ length: Math.min(10, count - ids.length) }, createOne))));
  return ids;
}

/** Set-up only (never the measured load): a 503 (directory slow on a busy machine) is retried. */
async function withRetry<T extends { status: number }>(call: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const result = await call();
    if (result.status !== 503 || attempt === attempts) return result;
    await sleep(1000);
  }
}

/**
 * Bills CPU to this process (the load generator), its children by app or script name, Postgres, NATS
 * and the kernel; Postgres backends of other databases (someone else's tests) go to "other".
 */
async function classifyProcesses(databaseUrl: string): Promise<Classify> {
  const others = await otherDatabaseBackends(databaseUrl);
  return (info) => {
    const { pid, ppid, comm, cmdline } = info;
    if (pid === process.pid) return 'load generator';
    // The benchmark's own nats-server (the harness starts one per run); others on the machine are not ours.
    if (comm === 'nats-server') return ppid === process.pid ? 'nats' : 'other';
    if (ppid === process.pid) return serviceAppOf(info) ?? (cmdline.includes('baseline-server') ? 'bare server' : 'other');
    if (comm.startsWith('postgres')) return others.has(pid) ? 'other' : 'postgres';
    if (ppid === 2 || pid === 2) return 'kernel';
    return 'other';
  };
}

/** Milliseconds over the phase as cores busy, as the report states them. */
function coresUsed(usage: CpuUsage | undefined): CoresUsed | undefined {
  if (!usage) return undefined;
  const cores = (ms: number) => ms / usage.wallMs;
  const capped = (ms: number) => Math.min(cpus().length, cores(ms));
  const groups = Object.fromEntries(Object.entries(usage.groups).map(([group, ms]) => [group, cores(ms)]));
  return { machineBusy: capped(usage.machineBusyMs), stolen: capped(usage.stolenMs), groups };
}

/** The settings as the report lists them; the cluster is in the benchmark's name. */
function numericSettings({ natsCluster: _cluster, ...numbers }: OffersBenchSettings): Record<string, number> {
  return numbers;
}
