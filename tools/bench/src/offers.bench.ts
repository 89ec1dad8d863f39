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
  workers: number;
  /** On a three-node NATS cluster, the stream replicated three times. */
  natsCluster: boolean;
}

export const OFFERS_TARGETS = { postPerSecond: 1000, getPerSecond: 4000, fixedRateP99Ms: 50, minimumRatio: 0.6 };

/** Registers a clean-up step; the caller runs them in reverse order, also on failure or Ctrl-C. */
export type Defer = (step: () => Promise<unknown>) => void;

/**
 * offers-api as deployed (own process, contact-directory beside it, outbox relay publishing to
 * JetStream) against a bare Fastify + pg server running the same SQL on the same Postgres.
 *
 * offers-api's phases run first, then offers-api is stopped and the baseline runs: the baseline's
 * outbox rows must not be published by offers-api's relay while the baseline is measured (that
 * would bill our relay to the baseline), nor counted when we check that no event was lost.
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

  const scenarios: ScenarioFigures[] = [];
  const measure = async (scenario: string, baseUrl: string, load: Omit<LoadOptions, 'baseUrl' | 'durationSeconds' | 'signal'>) => {
    signal.throwIfAborted();
    // No phase pays for the previous one: its dead tuples (autovacuum would run mid-phase) and dirty pages.
    await queryDatabase(databaseUrl, 'VACUUM (ANALYZE) offers.offer, offers.recipient, offers.outbox');
    await queryDatabase(databaseUrl, 'CHECKPOINT');
    log(`${scenario}: warm-up ${settings.warmupSeconds}s, then ${settings.durationSeconds}s`);
    const warmup = await runLoad({ ...load, baseUrl, durationSeconds: settings.warmupSeconds, signal });
    if (!clean(warmup)) log(`!!! ${scenario}: errors during warm-up: ${JSON.stringify(warmup.statusCodes)}, ${warmup.errors} socket errors`);
    signal.throwIfAborted();
    const stopCpu = measureCpu();
    const result = await runLoad({ ...load, baseUrl, durationSeconds: settings.durationSeconds, signal });
    const cpu = coresUsed(await stopCpu(() => classifyProcesses(databaseUrl)));
    log(`${scenario}: ${result.requestsPerSecond} req/s, p99 ${result.latencyMs.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
    signal.throwIfAborted();
    return { warmup, result, cpu };
  };

  const oursPost = await measure('POST /offer offers-api', offersUrl, { ...post, connections: settings.postConnections });
  scenarios.push(target('POST /offer offers-api', oursPost, `>= ${OFFERS_TARGETS.postPerSecond} req/s`, (r) => r.requestsPerSecond >= OFFERS_TARGETS.postPerSecond));
  const relayLagMs = await drainOutbox(databaseUrl);
  log(`outbox drained ${relayLagMs} ms after the POST load ended`);

  const oursGet = await measure('GET /offer/{id} offers-api', offersUrl, { ...get, connections: settings.getConnections });
  scenarios.push(target('GET /offer/{id} offers-api', oursGet, `>= ${OFFERS_TARGETS.getPerSecond} req/s`, (r) => r.requestsPerSecond >= OFFERS_TARGETS.getPerSecond));
  const fixed = await measure(`GET /offer/{id} offers-api @${settings.fixedRate}/s`, offersUrl, {
    ...get,
    connections: settings.fixedRateConnections,
    overallRate: settings.fixedRate,
  });
  scenarios.push(
    target(`GET /offer/{id} offers-api @${settings.fixedRate}/s`, fixed, `p99 < ${OFFERS_TARGETS.fixedRateP99Ms} ms`, (r) => r.latencyMs.p99 < OFFERS_TARGETS.fixedRateP99Ms),
  );

  const checks = await checkEvents({
    databaseUrl,
    jsm,
    stream: platform.events.stream,
    subject: `${platform.events.prefix}${EventSubject.OfferCreated}`,
    acceptedPosts: offerIds.length + oursPost.warmup.ok + oursPost.result.ok,
    // autocannon drops the requests in flight when a run ends; the server may still have stored them.
    inFlightAtStop: 2 * settings.postConnections,
    workers: settings.workers,
  });
  checks.unshift({ name: 'Outbox relay kept up', detail: `backlog drained ${relayLagMs} ms after the POST load ended`, pass: relayLagMs < 5_000 });

  log('stopping offers-api; starting the bare Fastify + pg baseline on the same database');
  await platform.services['offers-api'].stop();
  const baseline = await NodeProcess.start('dist/tools/bench/src/baseline-server.js', {
    DATABASE_URL: databaseUrl,
    ORGANISATION_ID: seeded.organisation.id,
    WORKER_NAMES: JSON.stringify(Object.fromEntries(seeded.workers.map((w) => [w.id, w.name]))),
  });
  defer(() => baseline.stop());
  const barePost = await measure('POST /offer bare', baseline.url, { ...post, connections: settings.postConnections });
  scenarios.push({ scenario: 'POST /offer bare', load: barePost.result, cpu: barePost.cpu });
  const bareGet = await measure('GET /offer/{id} bare', baseline.url, { ...get, connections: settings.getConnections });
  scenarios.push({ scenario: 'GET /offer/{id} bare', load: bareGet.result, cpu: bareGet.cpu });

  const ratios = [ratio('POST /offer', oursPost.result, barePost.result), ratio('GET /offer/{id}', oursGet.result, bareGet.result)];
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

function ratio(name: string, ours: LoadResult, bare: LoadResult): RatioFigures {
  const value = bare.requestsPerSecond > 0 ? ours.requestsPerSecond / bare.requestsPerSecond : 0;
  return {
    name,
    ours: ours.requestsPerSecond,
    bare: bare.requestsPerSecond,
    ratio: Math.round(value * 100) / 100,
    minimum: OFFERS_TARGETS.minimumRatio,
    pass: clean(ours) && clean(bare) && value >= OFFERS_TARGETS.minimumRatio,
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
