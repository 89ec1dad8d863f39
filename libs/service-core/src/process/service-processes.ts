import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import pino from 'pino';
import type { ServiceConfig } from '../config/service.config.js';

/** IPC between a worker's `GET /metrics` and the supervisor, which collects every worker's registry. */
const METRICS_REQUEST = 'service-processes:metrics-request';
const METRICS_RESPONSE = 'service-processes:metrics-response';
const METRICS_TIMEOUT_MS = 5_000;
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
  const aggregator = new AggregatorRegistry();
  let stopping = false;
  let exitCode = 0;
  const recentCrashes: number[] = [];

  const fork = () => cluster.fork();
  cluster.on('message', (worker: Worker, message: { type?: string; requestId?: number }) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, requestId: message.requestId, text }),
      (error: Error) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, requestId: message.requestId, error: error.message }),
    );
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0 && code !== null) exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    const now = Date.now();
    while (recentCrashes.length > 0 && now - recentCrashes[0] > 60_000) recentCrashes.shift();
    recentCrashes.push(now);
    const delay = Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** (recentCrashes.length - 1));
    logger.error({ pid: worker.process.pid, code, signal, restartInMs: delay }, 'worker process exited; starting a new one');
    setTimeout(() => stopping || fork(), delay).unref();
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

let nextRequestId = 0;
const pendingMetrics = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let workerListening = false;

/** True in a worker of a supervised service: its `GET /metrics` answers for every worker. */
export function isServiceWorker(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

/**
 * In a worker: answers the supervisor's collection requests from these registries. Called when the
 * worker starts, since the supervisor asks every worker whichever one was scraped.
 */
export function shareMetricsWithSupervisor(registries: Parameters<typeof AggregatorRegistry.setRegistries>[0]): void {
  if (workerListening || !isServiceWorker()) return;
  workerListening = true;
  AggregatorRegistry.setRegistries(registries);
  // Creating one installs prom-client's answer to the supervisor's collection requests.
  new AggregatorRegistry();
  process.on('message', (message: { type?: string; requestId?: number; text?: string; error?: string }) => {
    if (message?.type !== METRICS_RESPONSE || message.requestId === undefined) return;
    const pending = pendingMetrics.get(message.requestId);
    if (!pending) return;
    pendingMetrics.delete(message.requestId);
    clearTimeout(pending.timer);
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.text ?? '');
  });
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
