import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { inAttemptSpan } from './attempt-span.js';
import { Deliverer } from './deliverer.js';
import { type AttemptJob, type EndpointTrialJob, TRIAL_JOB_NAME } from './retry-queue.js';

/**
 * Runs the queued attempts (retries, deliveries whose endpoint was busy, redeliveries, released held
 * deliveries) and the endpoints' trial calls, through the same Deliverer as first attempts. A job told
 * to wait is put back in the queue, due again then, without using an attempt. JobQueues closes the
 * worker on shutdown, letting calls in flight finish and be logged.
 */
@Injectable()
export class RetryWorker implements OnApplicationBootstrap {
  constructor(
    private readonly jobs: JobQueues,
    private readonly deliverer: Deliverer,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.process<AttemptJob | EndpointTrialJob>(QueueName.WebhookDelivery, (job, token) => this.run(job, token ?? job.token), {
      concurrency: this.config.WEBHOOK_CONCURRENCY,
      // A job whose process died is taken up again after the lock expires; crashes are not the job's fault.
      maxStalledCount: 10,
      lockDuration: this.config.WEBHOOK_LOCK_DURATION_MS,
      stalledInterval: this.config.WEBHOOK_LOCK_DURATION_MS,
    });
  }

  async run(job: Job<AttemptJob | EndpointTrialJob>, token?: string): Promise<void> {
    // The job's id is its claim on the attempt it makes: the same job run again (its process died
    // mid-call) takes the attempt back; any other job for it finds it claimed.
    const claimant = job.id ?? randomUUID();
    const result =
      job.name === TRIAL_JOB_NAME
        ? await this.deliverer.trial((job.data as EndpointTrialJob).organisationId, claimant)
        : await this.attempt(job.data as AttemptJob, claimant);
    if (result.kind === 'done') return;
    await job.moveToDelayed(Date.now() + Math.round(result.ms), token);
    throw new DelayedError();
  }

  private attempt(job: AttemptJob, claimant: string) {
    return inAttemptSpan(job, job.attemptNo, () => this.deliverer.deliver(job, job.attemptNo, claimant));
  }
}
