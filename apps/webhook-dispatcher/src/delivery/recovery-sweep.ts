import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { counter, RepeatingTask } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { deliveryOf } from './delivery.js';
import { HeldDeliveries } from './held-deliveries.js';
import { RetryQueue } from './retry-queue.js';

/** Overdue deliveries queued again per sweep, at most. */
const SWEEP_BATCH = 1_000;

/**
 * The delivery log in PostgreSQL is the record; Redis only holds when each next attempt is due. Should
 * Redis lose its data (or a crash fall between writing the log and queueing the job), every process
 * sweeps the log now and then: a delivery neither finished nor held whose attempt is overdue by
 * `WEBHOOK_RECOVERY_AFTER_MS` is queued again, and every endpoint with held deliveries gets its trial
 * job. Job ids are deterministic, so a job that still exists is left as it is.
 */
@Injectable()
export class RecoverySweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RecoverySweep');
  private readonly recovered = counter('webhook_deliveries_recovered_total', 'Overdue deliveries queued again by the recovery sweep (their job was lost).');
  private readonly task = new RepeatingTask(
    () => this.sweep(),
    (error) => this.logger.warn(`recovery sweep failed: ${error.message}`),
  );

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly retries: RetryQueue,
    private readonly held: HeldDeliveries,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(Math.min(60_000, Math.max(500, this.config.WEBHOOK_RECOVERY_AFTER_MS / 2)));
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep; a sweep still running is not started twice. */
  sweepOnce(): Promise<void> {
    return this.task.runOnce();
  }

  private async sweep(): Promise<void> {
    const overdue = await this.repository.overdue(this.config.WEBHOOK_RECOVERY_AFTER_MS, SWEEP_BATCH);
    await this.retries.scheduleAll(overdue.map((row) => ({ delivery: deliveryOf(row), attemptNo: row.attemptsInSeries + 1 })));
    if (overdue.length > 0) this.recovered.inc(overdue.length);
    await this.held.ensureTrials();
  }
}
