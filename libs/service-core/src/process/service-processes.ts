import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import pino from 'pino';
import type { ServiceConfig } from '../config/service.config.js';
import { EXIT_CONFIGURATION } from './run-main.js';

/**
 * IPC between a worker's `GET /metrics` and the supervisor, which collects every worker's registry:
 * a worker says it is ready to be collected from once it can answer (READY), a scraped worker asks
 * (REQUEST), the supervisor collects from the ready workers (COLLECT → SNAPSHOT) and answers (RESPONSE).
 */
const METRICS_READY = 'service-processes:metrics-ready';
const METRICS_REQUEST = 'service-processes:metrics-request';
const METRICS_COLLECT = 'service-processes:metrics-collect';
const METRICS_SNAPSHOT = 'service-processes:metrics-snapshot';
const METRICS_RESPONSE = 'service-processes:metrics-response';
const METRICS_TIMEOUT_MS = 5_000;

/** One registry's metrics as a worker sends them (`getMetricsAsJSON`). */
type RegistrySnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

interface MetricsMessage {
  type?: string;
  requestId?: number;
  text?: string;
  error?: string;
  metrics?: RegistrySnapshot[];
}

/** A worker that dies is replaced after this delay, doubled for each crash within a minute (capped). */
const RESTART_BASE_MS = 500;
const RESTART_CAP_MS = 30_000;

/**
 * Runs a service as one process, or — with `processes` > 1 — as a supervisor of that many worker
 * processes (node:cluster) sharing the HTTP port, so one instance uses several cores.
 *
 * Each worker is a whole instance (HTTP, consumers, queues, outbox relay), as if it had been started
 * on its own: everything an instance does is already safe with several instances side by side
 * (migrations under an advisory lock, outbox rows claimed with SKIP LOCKED, shared durable consumers,
 * BullMQ). The supervisor only forks, replaces a worker that dies, passes SIGTERM/SIGINT on for a
 * graceful shutdown and exits when every worker has, and answers the workers' `GET /metrics` with the
 * sum of all of them. In-process limits and caches (an endpoint's calls in flight, credential caches)
 * are per worker.
 */
export async function runServiceProcesses(
  serviceName: string,
  config: Pick<ServiceConfig, 'SERVICE_PROCESSES' | 'LOG_LEVEL'>,
  start: () => Promise<unknown>,
): Promise<void> {
  const processes = config.SERVICE_PROCESSES;
  if (cluster.isWorker) {
    // The supervisor turns a terminal's Ctrl-C (which reaches the whole process group) into one SIGTERM
    // per worker; a second signal during the graceful shutdown would end it at once.
    process.on('SIGINT', () => undefined);
  }
  if (processes <= 1 || cluster.isWorker) {
    await start();
    return;
  }
  superviseWorkers(serviceName, processes, config.LOG_LEVEL);
}

function superviseWorkers(serviceName: string, processes: number, logLevel: string): void {
  const logger = pino({ name: serviceName, level: logLevel });
  const collector = new SupervisorMetrics();
  let stopping = false;
  let exitCode = 0;
  const recentCrashes: number[] = [];

  const fork = () => cluster.fork();
  cluster.on('message', (worker: Worker, message: MetricsMessage) => collector.onMessage(worker, message));
  cluster.on('exit', (worker, code, signal) => {
    collector.forget(worker);
    if (stopping) {
      if (code !== 0 && code !== null && exitCode === 0) exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (code === EXIT_CONFIGURATION) {
      // Its settings were refused (a file they name, a key): another worker would be refused the same.
      logger.fatal({ pid: worker.process.pid }, 'a worker process refused its configuration; stopping');
      exitCode = EXIT_CONFIGURATION;
      stop('SIGTERM');
      return;
    }
    const now = Date.now();
    while (recentCrashes.length > 0 && now - recentCrashes[0] > 60_000) recentCrashes.shift();
    recentCrashes.push(now);
    const delay = Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** (recentCrashes.length - 1));
    logger.error({ pid: worker.process.pid, code, signal, restartInMs: delay }, 'worker process exited; starting a new one');
    // Not unref'd: when every worker has died at once, this timer is all that keeps the supervisor
    // alive to replace them (stop() exits by itself once the last worker is gone).
    setTimeout(() => stopping || fork(), delay);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping: workers finish their work in hand');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  logger.info({ processes }, `starting ${processes} worker processes`);
  for (let i = 0; i < processes; i += 1) fork();
}

/**
 * The supervisor's side of `GET /metrics`: it collects from the workers that said they can answer, so
 * a worker still starting (or just replaced) does not hold every scrape until the timeout.
 */
class SupervisorMetrics {
  private readonly ready = new Set<number>();
  private nextCollection = 0;
  private readonly collections = new Map<number, { waitingFor: Set<number>; snapshots: RegistrySnapshot[]; done: (error?: Error) => void }>();

  onMessage(worker: Worker, message: MetricsMessage): void {
    if (message?.type === METRICS_READY) this.ready.add(worker.id);
    else if (message?.type === METRICS_SNAPSHOT && message.requestId !== undefined) this.received(worker, message.requestId, message);
    else if (message?.type === METRICS_REQUEST && message.requestId !== undefined) {
      const requestId = message.requestId;
      this.collect().then(
        (text) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, requestId, text }),
        (error: Error) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, requestId, error: error.message }),
      );
    }
  }

  /** A worker that exited: no longer asked, and no longer waited for. */
  forget(worker: Worker): void {
    this.ready.delete(worker.id);
    for (const collection of this.collections.values()) {
      collection.waitingFor.delete(worker.id);
      if (collection.waitingFor.size === 0) collection.done();
    }
  }

  private collect(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker && this.ready.has(worker.id) && worker.isConnected());
    const id = this.nextCollection++;
    const snapshots: RegistrySnapshot[] = [];
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error('a worker process did not send its metrics in time')), METRICS_TIMEOUT_MS);
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.collections.delete(id);
        if (error) reject(error);
        else AggregatorRegistry.aggregate(snapshots).metrics().then(resolve, reject);
      };
      this.collections.set(id, { waitingFor: new Set(workers.map((worker) => worker.id)), snapshots, done });
      if (workers.length === 0) done();
      for (const worker of workers) worker.send({ type: METRICS_COLLECT, requestId: id });
    });
  }

  private received(worker: Worker, requestId: number, { metrics, error }: MetricsMessage): void {
    const collection = this.collections.get(requestId);
    if (!collection?.waitingFor.delete(worker.id)) return;
    if (error !== undefined) return collection.done(new Error(error));
    collection.snapshots.push(...(metrics ?? []));
    if (collection.waitingFor.size === 0) collection.done();
  }
}

let nextRequestId = 0;
const pendingMetrics = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let workerListening = false;

/** True in a worker of a supervised service: its `GET /metrics` answers for every worker. */
export function isServiceWorker(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

/**
 * In a worker: answers the supervisor's collections from these registries, then tells the supervisor
 * it can be collected from. Called when the worker starts, since the supervisor asks every ready
 * worker whichever one was scraped.
 */
export function shareMetricsWithSupervisor(registries: Registry[] | Registry): void {
  if (workerListening || !isServiceWorker()) return;
  workerListening = true;
  const shared = Array.isArray(registries) ? registries : [registries];
  process.on('message', (message: MetricsMessage) => {
    if (message?.requestId === undefined) return;
    const requestId = message.requestId;
    if (message.type === METRICS_COLLECT) {
      Promise.all(shared.map((registry) => registry.getMetricsAsJSON())).then(
        (metrics) => process.send?.({ type: METRICS_SNAPSHOT, requestId, metrics }),
        // A registry that cannot be read fails this scrape, as it would in a single process.
        (error: Error) => process.send?.({ type: METRICS_SNAPSHOT, requestId, error: error.message }),
      );
      return;
    }
    if (message.type !== METRICS_RESPONSE) return;
    const pending = pendingMetrics.get(requestId);
    if (!pending) return;
    pendingMetrics.delete(requestId);
    clearTimeout(pending.timer);
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.text ?? '');
  });
  process.send?.({ type: METRICS_READY });
}

/**
 * In a worker: the metrics of all the service's processes, aggregated by the supervisor (counters and
 * histograms summed; gauges as each declares), so one scrape of the shared port sees the whole instance.
 */
export function clusterMetrics(): Promise<string> {
  const requestId = nextRequestId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pendingMetrics.delete(requestId);
      reject(new Error('the supervisor did not answer the metrics request'));
    }, METRICS_TIMEOUT_MS);
    pendingMetrics.set(requestId, { resolve, reject, timer });
    process.send?.({ type: METRICS_REQUEST, requestId });
  });
}
