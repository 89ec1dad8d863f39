import { Injectable } from '@nestjs/common';
import type { JobsOptions } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { jobIdFor } from '../domain/webhook-call.js';

/** A BullMQ job: one attempt series of one delivery. Carries all it needs, so an attempt reads nothing first. */
export interface DeliveryJob {
  deliveryId: number;
  series: number;
  eventId: string;
  organisationId: string;
  subject: string;
  webhookId: string;
  method: 'GET' | 'POST';
  path: string;
  body: string;
  /** Attempts this series used before the job was queued (it was held back meanwhile); 0 when absent. */
  attemptsBefore?: number;
}

/** The job that tries an endpoint with held deliveries again (one per endpoint: its id is the endpoint's). */
export interface EndpointTrialJob {
  organisationId: string;
}

/** Back-off type name handled by the worker's `settings.backoffStrategy`. */
export const WEBHOOK_BACKOFF = 'webhook';
const JOB_NAME = 'deliver';
export const TRIAL_JOB_NAME = 'endpoint-trial';

@Injectable()
export class DeliveryQueue {
  constructor(
    private readonly jobs: JobQueues,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  /** The job of a redelivery's new attempt series. */
  static jobFor(row: {
    id: number;
    series: number;
    eventId: string;
    organisationId: string;
    eventSubject: string;
    webhookId: string;
    method: string;
    path: string;
    body: string;
    attemptsInSeries?: number;
  }): DeliveryJob {
    return {
      ...(row.attemptsInSeries ? { attemptsBefore: row.attemptsInSeries } : {}),
      deliveryId: row.id,
      series: row.series,
      eventId: row.eventId,
      organisationId: row.organisationId,
      subject: row.eventSubject,
      webhookId: row.webhookId,
      method: row.method as DeliveryJob['method'],
      path: row.path,
      body: row.body,
    };
  }

  /**
   * Queues attempt series; one that is still queued (same job id) is left as it is. `holdMs` delays a
   * job's first look at its endpoint (an endpoint known to be down).
   */
  async enqueue(deliveries: DeliveryJob[], holdMs: (job: DeliveryJob) => number = () => 0): Promise<void> {
    for (let start = 0; start < deliveries.length; start += 500) {
      await this.jobs.addBulk(
        QueueName.WebhookDelivery,
        deliveries.slice(start, start + 500).map((data) => ({ name: JOB_NAME, data, opts: this.options(data, holdMs(data)) })),
      );
    }
  }

  /**
   * Makes sure each endpoint has its trial job, due in `delayMs`; an endpoint that already has one keeps
   * it as it is (same job id).
   */
  async scheduleTrials(trials: Array<{ organisationId: string; delayMs: number }>): Promise<void> {
    await this.jobs.addBulk<EndpointTrialJob>(
      QueueName.WebhookDelivery,
      trials.map(({ organisationId, delayMs }) => ({
        name: TRIAL_JOB_NAME,
        data: { organisationId },
        opts: {
          jobId: trialJobIdFor(organisationId),
          delay: Math.max(0, Math.round(delayMs)),
          // Errors of our own (database, Redis) are retried; a trial job lost anyway is re-created by the sweep.
          attempts: 5,
          backoff: { type: 'exponential', delay: 5_000 },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  private options(data: DeliveryJob, delayMs: number): JobsOptions & { jobId: string } {
    return {
      jobId: jobIdFor(data.eventId, data.organisationId, data.series),
      ...(delayMs > 0 ? { delay: delayMs } : {}),
      // A series keeps its attempt budget across a hold.
      attempts: Math.max(1, this.config.WEBHOOK_MAX_ATTEMPTS - (data.attemptsBefore ?? 0)),
      backoff: { type: WEBHOOK_BACKOFF },
      // A delivered job leaves Redis at once (no completed set to keep and trim on every completion): the
      // delivery log in Postgres is the record, and its status, written before the job completes, is what
      // stops a repeated event from queueing the delivery again.
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3_600, count: 10_000 },
    };
  }
}

export function trialJobIdFor(organisationId: string): string {
  return `trial_${organisationId}`;
}
