import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { JobsOptions } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { type CarriedTrace, currentTrace, MicroBatcher } from '@availability/service-core';
import { jobIdFor } from '../domain/webhook-call.js';
import type { Delivery } from './delivery.js';

/**
 * A BullMQ job: one attempt of a delivery, due when the job is. It carries the trace of the work that
 * scheduled it (the failed attempt, an operator's redelivery), which its own attempt continues.
 */
export interface AttemptJob extends Delivery, CarriedTrace {
  /** Which attempt of the series this job makes, from 1. */
  attemptNo: number;
  /** Set on an attempt released from a hold: the hold (HeldSince), part of the job's id. */
  heldSince?: string;
}

/** The job that tries an endpoint with held deliveries again (one per endpoint: its id is the endpoint's). */
export interface EndpointTrialJob {
  organisationId: string;
}

export const ATTEMPT_JOB_NAME = 'deliver';
export const TRIAL_JOB_NAME = 'endpoint-trial';

/** Errors of our own (database, Redis) while a job runs: the job runs again after 5 s, 10 s, … */
const OWN_ERROR_RETRIES = { attempts: 6, backoff: { type: 'exponential', delay: 5_000 } } as const;

/**
 * The durable side of delivery: attempts that are not made at once (retries after a failure,
 * deliveries whose endpoint was busy, redeliveries, held deliveries released) wait here as delayed
 * BullMQ jobs, one job per attempt with a deterministic id, so scheduling the same attempt twice
 * (a repeated event, a crash, the recovery sweep) leaves one job. Calls of a burst share round trips.
 */
@Injectable()
export class RetryQueue implements OnModuleDestroy {
  private readonly batcher = new MicroBatcher<{ job: AttemptJob; delayMs: number }, void>((items) => this.add(items), 500);

  constructor(private readonly jobs: JobQueues) {}

  async onModuleDestroy(): Promise<void> {
    await this.batcher.drain();
  }

  /** Attempt `attemptNo` of `delivery`, due in `delayMs`; resolves once it is in Redis. `heldSince`: see AttemptJob. */
  schedule(delivery: Delivery, attemptNo: number, delayMs: number, heldSince?: string): Promise<void> {
    // Trace and hold are set here: a batch is written in the context of its first item, and a delivery
    // handed on from an earlier job still carries that job's trace and, if it was released, its hold,
    // which must name the released attempt's job only.
    const { traceparent, requestId } = currentTrace();
    return this.batcher.add({ job: { ...delivery, attemptNo, traceparent, requestId, heldSince }, delayMs });
  }

  /** Many attempts at once (a release, a redelivery, the recovery sweep). */
  async scheduleAll(attempts: Array<{ delivery: Delivery; attemptNo: number; delayMs?: number; heldSince?: string }>): Promise<void> {
    await Promise.all(attempts.map(({ delivery, attemptNo, delayMs, heldSince }) => this.schedule(delivery, attemptNo, delayMs ?? 0, heldSince)));
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
        // A trial job lost anyway is re-created by the recovery sweep.
        opts: { jobId: trialJobIdFor(organisationId), delay: Math.max(0, Math.round(delayMs)), ...OWN_ERROR_RETRIES, removeOnComplete: true, removeOnFail: true },
      })),
    );
  }

  private async add(items: Array<{ job: AttemptJob; delayMs: number }>): Promise<void[]> {
    await this.jobs.addBulk(
      QueueName.WebhookDelivery,
      items.map(({ job, delayMs }) => ({ name: ATTEMPT_JOB_NAME, data: job, opts: attemptJobOptions(job, delayMs) })),
    );
    return items.map(() => undefined);
  }
}

function attemptJobOptions(job: AttemptJob, delayMs: number): JobsOptions & { jobId: string } {
  return {
    jobId: jobIdFor(job.eventId, job.organisationId, job.series, job.attemptNo, job.heldSince),
    ...(delayMs > 0 ? { delay: Math.round(delayMs) } : {}),
    ...OWN_ERROR_RETRIES,
    // A finished job leaves Redis at once: the delivery log in PostgreSQL is the record. A job that
    // failed for our own reasons goes too, so that the recovery sweep can queue its attempt again.
    removeOnComplete: true,
    removeOnFail: true,
  };
}

export function trialJobIdFor(organisationId: string): string {
  return `trial_${organisationId}`;
}
