import { once } from 'node:events';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { type Job, type JobsOptions, type KeepJobs, Queue, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { SpanKind } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM_NAME,
  type CarriedTrace,
  connectRedis,
  currentTrace,
  redisTarget,
  ServiceConfig,
  type HealthContributor,
  inSpan,
  observeGauge,
  type RedisTarget,
  tracingOn,
} from '@availability/service-core';
import type { QueueName } from './queue-name.js';

export interface JobQueuesOptions {
  redis: RedisTarget;
  /** Key prefix in Redis, so environments and test runs sharing one Redis never see each other's jobs. */
  prefix: string;
  /**
   * Finished jobs each queue keeps in Redis at most, completed and failed (QUEUE_COMPLETED_JOBS_KEPT,
   * QUEUE_FAILED_JOBS_KEPT); older ones are removed as new ones finish. Default: ServiceConfig's.
   */
  kept?: { completed: number; failed: number };
}

/** A service's job queues as its configuration names them. */
export function jobQueuesOptions(config: ServiceConfig): JobQueuesOptions {
  return { redis: redisTarget(config), prefix: config.QUEUE_PREFIX, kept: { completed: config.QUEUE_COMPLETED_JOBS_KEPT, failed: config.QUEUE_FAILED_JOBS_KEPT } };
}

/**
 * A job's options with its finished copies bounded: a job that is removed once finished (`true`)
 * stays so; any other keeps at most `kept` of its queue's completed or failed jobs, and its own age
 * limit. Without it, Redis would hold every finished job for ever (BullMQ's default).
 */
export function boundedJobOptions<T extends JobsOptions>(options: T, kept: { completed: number; failed: number }): T {
  return { ...options, removeOnComplete: boundedKeep(options.removeOnComplete, kept.completed), removeOnFail: boundedKeep(options.removeOnFail, kept.failed) };
}

function boundedKeep(keep: boolean | number | KeepJobs | undefined, most: number): true | KeepJobs {
  if (keep === true) return true;
  if (typeof keep === 'number') return { count: Math.min(keep, most) };
  if (typeof keep === 'object') return { ...keep, count: Math.min(keep.count ?? most, most) };
  return { count: most };
}

/** ServiceConfig's defaults of QUEUE_COMPLETED_JOBS_KEPT and QUEUE_FAILED_JOBS_KEPT. */
const CONFIG_DEFAULTS = new ServiceConfig();
const DEFAULT_KEPT = { completed: CONFIG_DEFAULTS.QUEUE_COMPLETED_JOBS_KEPT, failed: CONFIG_DEFAULTS.QUEUE_FAILED_JOBS_KEPT };

export const JOB_QUEUES_OPTIONS = Symbol('JOB_QUEUES_OPTIONS');

/** How long a health check waits for Redis's PONG. */
const PING_TIMEOUT_MS = 1_000;

/** The states `queue_jobs` reports. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;

/**
 * Job data carries the trace of the work that enqueued it (`traceparent`, and `requestId` when there
 * is one), so the job, run now or as a retry an hour later, joins the trace of the request that
 * caused it. Only plain-object data is traced; data that carries its own trace keeps it.
 */
export function withTrace<T>(data: T, trace: CarriedTrace = currentTrace()): T {
  if (!trace.traceparent || typeof data !== 'object' || data === null || Array.isArray(data) || 'traceparent' in data) return data;
  return trace.requestId === undefined ? { ...data, traceparent: trace.traceparent } : { ...data, traceparent: trace.traceparent, requestId: trace.requestId };
}

/** `token` is the worker's lock token: needed to move a job back to delayed (e.g. to honour Retry-After). */
export type JobProcessor<T> = (job: Job<T>, token?: string) => Promise<void>;

/**
 * The one place that owns BullMQ: queues, workers and their Redis connections. Services enqueue
 * with deterministic job ids (derived from the event and the target) so a redelivered event never
 * creates a second job, and declare one processor per queue with its concurrency from config.
 */
@Injectable()
export class JobQueues implements OnModuleDestroy {
  private readonly logger = new Logger('JobQueues');
  private readonly connection: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Array<{ worker: Worker; connection: Redis }> = [];
  private readonly stopObserving: () => void;
  private readonly kept: { completed: number; failed: number };

  constructor(@Inject(JOB_QUEUES_OPTIONS) private readonly options: JobQueuesOptions) {
    this.kept = options.kept ?? DEFAULT_KEPT;
    // BullMQ needs maxRetriesPerRequest null: a worker's blocking commands must wait out a Redis restart, not fail.
    this.connection = connectRedis(options.redis, { maxRetriesPerRequest: null, lazyConnect: false });
    this.connection.on('error', (error) => this.logger.warn(`redis: ${error.message}`));
    this.stopObserving = observeGauge('queue_jobs', 'Jobs in each queue this process uses, by state.', ['queue', 'state'], async (set) => {
      for (const [name, queue] of this.queues) {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) set({ queue: name, state }, counts[state] ?? 0);
      }
    });
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.options.prefix });
      // A queue passes on its connection's errors, which are logged above; with no listener BullMQ
      // writes each one raw to stderr, outside the structured log.
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Adds a job; a job with the same `jobId` that still exists is left as it is (de-duplication). Its
   * finished copy is kept within the queues' bound (boundedJobOptions).
   */
  async add<T>(name: QueueName, jobName: string, data: T, options: JobsOptions & { jobId: string }): Promise<void> {
    await this.queue(name).add(jobName, withTrace(data), boundedJobOptions(options, this.kept));
  }

  async addBulk<T>(name: QueueName, jobs: Array<{ name: string; data: T; opts: JobsOptions & { jobId: string } }>): Promise<void> {
    if (jobs.length > 0) await this.queue(name).addBulk(jobs.map((job) => ({ ...job, data: withTrace(job.data), opts: boundedJobOptions(job.opts, this.kept) })));
  }

  /**
   * Starts processing a queue in this process. The worker is this class's to close (on module destroy):
   * a BullMQ worker's own close() never settles once its Redis has been gone a few seconds.
   */
  process<T>(name: QueueName, processor: JobProcessor<T>, options: Omit<WorkerOptions, 'connection' | 'prefix'> & { concurrency: number }): void {
    // A worker blocks its connection while waiting for jobs, so it gets its own.
    const connection = this.connection.duplicate();
    this.queue(name); // so its depth is reported
    const traced: JobProcessor<T> = (job, token) =>
      inSpan(`process ${name}`, { kind: SpanKind.CONSUMER, from: job.data as CarriedTrace, attributes: tracingOn() ? jobAttributes(name, job) : undefined }, () => processor(job, token));
    const worker = new Worker<T>(name, traced, { ...options, connection, prefix: this.options.prefix });
    worker.on('error', (error) => this.logger.warn(`${name} worker: ${error.message}`));
    // The log keeps what a failed job was after Redis has let it go (QUEUE_FAILED_JOBS_KEPT).
    worker.on('failed', (job, error) => {
      if (job && (error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1))) {
        this.logger.warn(`${name} job ${job.id} failed for good after ${job.attemptsMade} attempt(s): ${error.message}`);
      }
    });
    this.workers.push({ worker: worker as Worker, connection });
  }

  /**
   * Redis's answer to PING; fails at once when the connection is not open, and after `timeoutMs`
   * without an answer. Commands otherwise wait for Redis as long as it takes (a worker must outlast a
   * restart), and a health check must not.
   */
  async ping(timeoutMs = PING_TIMEOUT_MS): Promise<string> {
    if (this.connection.status !== 'ready') throw new Error(`not connected (${this.connection.status})`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
    try {
      return await Promise.race([this.connection.ping(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Lets active jobs finish (graceful shutdown), then closes queues and connections. Without Redis
   * no job can finish or be handed back, so a connection that is not open, or closes meanwhile, ends
   * the wait: the process stops rather than waiting for a Redis that may never come back.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopObserving();
    const connections = [this.connection, ...this.workers.map((w) => w.connection)];
    if (this.connection.status === 'ready') {
      const graceful = (async () => {
        await Promise.all(this.workers.map(({ worker }) => worker.close()));
        await Promise.all([...this.queues.values()].map((queue) => queue.close()));
        await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
      })();
      await Promise.race([graceful, once(this.connection, 'close')]);
    }
    for (const connection of connections) connection.disconnect();
    // Ends the workers' loops and timers; they have nothing left to hand back.
    for (const { worker } of this.workers) void worker.close(true).catch(() => undefined);
  }
}

function jobAttributes(queue: QueueName, job: Job) {
  return {
    [ATTR_MESSAGING_SYSTEM_NAME]: 'bullmq',
    [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
    [ATTR_MESSAGING_DESTINATION_NAME]: queue,
    [ATTR_MESSAGING_MESSAGE_ID]: job.id,
    'bullmq.job.name': job.name,
    'bullmq.job.attempts_made': job.attemptsMade,
  };
}

@Injectable()
export class RedisHealth implements HealthContributor {
  constructor(private readonly jobs: JobQueues) {}

  async check(indicators: HealthIndicatorService): Promise<HealthIndicatorResult> {
    const session = indicators.check('redis');
    try {
      await this.jobs.ping();
      return session.up();
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }
}
