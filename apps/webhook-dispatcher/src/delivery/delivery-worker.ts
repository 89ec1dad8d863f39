import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, type Job, UnrecoverableError, type Worker } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { OutboundClient, OutboundRequestError, type OutboundResponse } from '@availability/outbound-http';
import { counter, histogram, LATENCY_BUCKETS_SECONDS } from '@availability/service-core';
import { signRequest, SigningKeyRing } from '@availability/webhook-signing';
import { outboundClientOptions, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { type BackoffSchedule, backoffDelay, holdWithJitter } from '../domain/backoff.js';
import { classifyFailure, classifyResponse, type Verdict } from '../domain/classify.js';
import { MicroBatcher } from '../domain/micro-batcher.js';
import { type RetryPolicy, stepAfterAttempt } from '../domain/retry-policy.js';
import { targetUrl } from '../domain/webhook-call.js';
import { type AttemptRecord, DeliveriesRepository, type DeliveryStatus } from './deliveries.repository.js';
import { type DeliveryJob, DeliveryQueue, type EndpointTrialJob, TRIAL_JOB_NAME } from './delivery-queue.js';
import { EndpointRegistry, PUT_BACK_MS } from './endpoint-registry.js';
import { HeldDeliveries } from './held-deliveries.js';
import { TargetResolver, type WebhookTarget } from './target-resolver.js';

/** Thrown for a failed attempt that will be retried; the back-off strategy reads the delay from it. */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

/** How long a job waits in line for a slot of a busy (not stalled) endpoint before it is put back. */
const SLOT_WAIT_MS = 1_000;
/** Delay when the directory could not tell us where to call (our side, not the integrator's: no attempt used). */
const TARGET_UNKNOWN_WAIT_MS = 5_000;

/** What became of an attempt: the delivery's status after it, and when the next one is due if any. */
interface AttemptOutcome {
  status: DeliveryStatus;
  retryInMs?: number;
  reason: string;
}

/**
 * Runs delivery jobs: checks the endpoint (disabled, circuit open, too many calls in flight), signs
 * and sends the call through OutboundClient, logs the attempt, and decides what comes next: done,
 * retry with back-off (or the integrator's Retry-After), dead-letter, or disable the endpoint.
 * A delivery meeting an open circuit is held (HeldDeliveries); the endpoint's trial job, run here too,
 * calls it again with one held delivery and releases them all when that call succeeds.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DeliveryWorker');
  private readonly client: OutboundClient;
  private readonly schedule: BackoffSchedule;
  private readonly retryPolicy: RetryPolicy;
  private readonly attempts: MicroBatcher<AttemptRecord, void>;
  private readonly outcomes = counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts by outcome: succeeded, failed (will retry), dead (dead-lettered), skipped (no base URL).',
    ['outcome'],
  );
  private readonly putBacks = counter(
    'webhook_jobs_put_back_total',
    'Delivery jobs put back without an attempt: endpoint-busy (its calls in flight at the limit, or stalled), target-unknown (the directory did not answer).',
    ['reason'],
  );
  private readonly callDurations = histogram('webhook_delivery_duration_seconds', 'Duration of calls to integrators.', [], LATENCY_BUCKETS_SECONDS);
  private worker?: Worker<DeliveryJob | EndpointTrialJob>;

  constructor(
    private readonly jobs: JobQueues,
    private readonly repository: DeliveriesRepository,
    private readonly resolver: TargetResolver,
    private readonly endpoints: EndpointRegistry,
    private readonly held: HeldDeliveries,
    private readonly config: WebhookDispatcherConfig,
    private readonly keys: SigningKeyRing,
  ) {
    this.client = new OutboundClient(outboundClientOptions(config));
    this.schedule = { baseMs: config.WEBHOOK_BACKOFF_BASE_MS, factor: config.WEBHOOK_BACKOFF_FACTOR, capMs: config.WEBHOOK_BACKOFF_CAP_MS };
    this.retryPolicy = {
      schedule: this.schedule,
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      clientErrorMaxAttempts: config.WEBHOOK_CLIENT_ERROR_MAX_ATTEMPTS,
      retryAfterMaxMs: config.WEBHOOK_RETRY_AFTER_MAX_MS,
    };
    this.attempts = new MicroBatcher((records) => this.repository.recordAttempts(records).then(() => records.map(() => undefined)), 500);
  }

  onApplicationBootstrap(): void {
    this.worker = this.jobs.process<DeliveryJob | EndpointTrialJob>(QueueName.WebhookDelivery, (job, token) => this.route(job, token ?? job.token), {
      concurrency: this.config.WEBHOOK_CONCURRENCY,
      // A job whose process died is taken up again after the lock expires; crashes are not the job's fault.
      maxStalledCount: 10,
      lockDuration: this.config.WEBHOOK_LOCK_DURATION_MS,
      stalledInterval: this.config.WEBHOOK_LOCK_DURATION_MS,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) =>
          error instanceof RetryLaterError ? error.delayMs : backoffDelay(attemptsMade, this.schedule),
      },
    } as Parameters<JobQueues['process']>[2]);
  }

  /** Graceful shutdown: no new jobs; active calls finish and are logged. */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
    await this.attempts.drain();
    await this.client.close();
  }

  private route(job: Job<DeliveryJob | EndpointTrialJob>, token?: string): Promise<void> {
    return job.name === TRIAL_JOB_NAME ? this.trial(job as Job<EndpointTrialJob>, token) : this.process(job as Job<DeliveryJob>, token);
  }

  async process(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const delivery = job.data;
    const org = delivery.organisationId;
    const state = await this.endpoints.state(org);
    if (state.disabled) {
      await this.repository.settle(delivery.deliveryId, delivery.series, 'dead', `endpoint disabled: ${state.disabledReason}`);
      this.outcomes.inc({ outcome: 'dead' });
      return;
    }
    if (!(await this.endpoints.limiter.acquire(org, SLOT_WAIT_MS))) {
      this.putBacks.inc({ reason: 'endpoint-busy' });
      return this.putBack(job, token, holdWithJitter(PUT_BACK_MS));
    }
    // The slot limits calls in flight to the integrator: it is given back as soon as the call ends, not after the bookkeeping.
    let held = true;
    const release = () => {
      if (held) this.endpoints.limiter.release(org);
      held = false;
    };
    try {
      const wait = this.endpoints.breakers.waitMs(org);
      if (wait > 0) {
        // Circuit open: the delivery waits in the log for the endpoint's trial call, and its job ends here.
        release();
        await this.held.hold({ deliveryId: delivery.deliveryId, series: delivery.series, organisationId: org, trialInMs: holdWithJitter(wait) });
        return;
      }

      let target;
      try {
        target = await this.resolver.resolve(org);
      } catch (error) {
        this.logger.warn(`target of organisation ${org} unknown: ${(error as Error).message}`);
        this.putBacks.inc({ reason: 'target-unknown' });
        return await this.putBack(job, token, TARGET_UNKNOWN_WAIT_MS);
      }
      if (!target.baseUrl) {
        release();
        await this.repository.settle(delivery.deliveryId, delivery.series, 'skipped', 'the organisation has no webhook base URL');
        this.outcomes.inc({ outcome: 'skipped' });
        return;
      }
      const outcome = await this.attempt(delivery, (delivery.attemptsBefore ?? 0) + job.attemptsMade + 1, target.baseUrl, target, release);
      if (outcome.status === 'succeeded') return;
      if (outcome.status === 'dead') throw new UnrecoverableError(outcome.reason);
      throw new RetryLaterError(outcome.reason, outcome.retryInMs ?? 0);
    } finally {
      release();
    }
  }

  /**
   * The trial call of an endpoint with held deliveries: the held delivery due first is attempted; if it
   * succeeds every held delivery is queued again, otherwise the trial job waits for the next cool-down
   * (or until the next held delivery is due by its own retry schedule, if that is later).
   */
  private async trial(job: Job<EndpointTrialJob>, token?: string): Promise<void> {
    const org = job.data.organisationId;
    if ((await this.endpoints.state(org)).disabled) return; // its held deliveries were dead-lettered when it was disabled
    const next = await this.held.next(org);
    if (!next) return;
    const dueInMs = next.nextAttemptAt ? next.nextAttemptAt.getTime() - Date.now() : 0;
    if (dueInMs > 0) return this.putBack(job, token, dueInMs);
    if (!(await this.endpoints.limiter.acquire(org, 0))) return this.putBack(job, token, this.held.trialDelayMs());
    let held = true;
    const release = () => {
      if (held) this.endpoints.limiter.release(org);
      held = false;
    };
    let outcome: AttemptOutcome;
    try {
      const target = await this.resolver.resolve(org);
      if (!target.baseUrl) {
        // Nothing to call any more: the deliveries go back to the queue, whose jobs log them as skipped.
        await this.held.release(org);
        return;
      }
      outcome = await this.attempt(DeliveryQueue.jobFor(next), next.attemptsInSeries + 1, target.baseUrl, target, release);
    } finally {
      release();
    }
    if (outcome.status === 'succeeded') {
      await this.held.release(org);
      return;
    }
    return this.putBack(job, token, this.held.trialDelayMs());
  }

  private async putBack(job: Job<DeliveryJob | EndpointTrialJob>, token: string | undefined, delayMs: number): Promise<never> {
    await job.moveToDelayed(Date.now() + Math.round(delayMs), token);
    throw new DelayedError();
  }

  /** One call of a delivery, logged; `attemptNo` counts from 1 within the delivery's series. */
  private async attempt(delivery: DeliveryJob, attemptNo: number, baseUrl: string, to: WebhookTarget, release: () => void): Promise<AttemptOutcome> {
    const startedAt = new Date();
    let url: string | null = null;
    let response: OutboundResponse | undefined;
    let verdict: Verdict;
    let errorKind: string | null = null;
    let errorMessage: string | null = null;
    try {
      const target = targetUrl(baseUrl, delivery.path);
      url = target.url;
      const headers: Record<string, string> = {
        ...signRequest({
          secrets: to.secrets,
          schemes: to.signatureSchemes,
          signingKey: this.keys.active,
          method: delivery.method,
          pathWithQuery: target.pathWithQuery,
          body: delivery.body,
          webhookId: delivery.webhookId,
        }),
        'user-agent': 'AvailabilityPlatform-Webhooks/1.0',
      };
      if (delivery.body !== '') headers['content-type'] = 'application/json';
      response = await this.client.send({
        url: target.url,
        method: delivery.method,
        headers,
        body: delivery.body === '' ? undefined : delivery.body,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: this.config.WEBHOOK_RESPONSE_EXCERPT_BYTES,
      });
      verdict = classifyResponse(response.status, response.headers);
      if (verdict.kind !== 'success') errorMessage = `HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof OutboundRequestError) {
        verdict = classifyFailure(error.kind);
        errorKind = error.kind;
        errorMessage = error.message;
      } else if (error instanceof TypeError) {
        // An invalid base URL or secret: retrying cannot help.
        verdict = { kind: 'forbidden' };
        errorKind = 'invalid-target';
        errorMessage = error.message;
      } else {
        throw error;
      }
    } finally {
      release();
    }
    const durationMs = response?.durationMs ?? Date.now() - startedAt.getTime();
    const org = delivery.organisationId;

    const step = stepAfterAttempt(verdict, attemptNo, this.retryPolicy);
    let status: DeliveryStatus = step.status;
    let retryInMs = step.status === 'failed' ? step.retryInMs : undefined;
    if (verdict.kind === 'disable') errorMessage = `HTTP 410 Gone: endpoint disabled`;

    const circuitWasOpen = this.endpoints.breakers.isOpen(org);
    // Endpoint health is bookkeeping: its failure must not turn a delivered webhook into a retry.
    // It comes before the attempt is logged, so that the failure which disables an endpoint ends its delivery too.
    try {
      if (verdict.kind === 'success') await this.endpoints.recordSuccess(org);
      else if (verdict.kind === 'disable') await this.endpoints.disable(org, baseUrl, `${url ?? baseUrl} answered 410 Gone`);
      else if (verdict.kind === 'retry' && verdict.countsAsEndpointFailure) {
        const disabledFor = await this.endpoints.recordFailure(org, baseUrl);
        if (disabledFor !== null && status === 'failed') {
          status = 'dead';
          retryInMs = undefined;
          errorMessage = `${errorMessage ?? 'failed'}; endpoint disabled: ${disabledFor}`;
        }
      }
    } catch (error) {
      this.logger.warn(`endpoint bookkeeping for ${org} failed: ${(error as Error).message}`);
    }

    await this.attempts.add({
      deliveryId: delivery.deliveryId,
      series: delivery.series,
      startedAt,
      durationMs,
      statusCode: response?.status ?? null,
      errorKind,
      errorMessage,
      responseExcerpt: response ? response.body : null,
      status,
      nextAttemptAt: retryInMs !== undefined ? new Date(Date.now() + retryInMs) : null,
      url,
    });

    this.outcomes.inc({ outcome: status });
    this.callDurations.observe(durationMs / 1000);
    if (status === 'succeeded' && circuitWasOpen) {
      // This process's half-open call got through: what was held for the endpoint goes now, not at its
      // trial job. Only after the attempt is logged, so the delivery just made is no longer held.
      this.held.release(org).catch((error: Error) => this.logger.warn(`release of ${org}: ${error.message}`));
    }

    return { status, retryInMs, reason: errorMessage ?? 'failed' };
  }
}
