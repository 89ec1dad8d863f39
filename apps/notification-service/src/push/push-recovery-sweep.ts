import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { counter, RepeatingTask } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { retryDelay } from './fcm-errors.js';
import { PushRepository } from './push.repository.js';
import { PushService } from './push.service.js';
import { type PendingFanOut, planPushRecovery, type PushRecoveryTimes } from './push-recovery.js';

/** Fan-outs read at a time. */
const PAGE = 500;

/**
 * Pushes survive the loss of Redis's data. Each fan-out is recorded as pending in PostgreSQL with its
 * worker notifications; every JOB_RECOVERY_INTERVAL_MS this sweep reads the pending fan-outs older
 * than JOB_RECOVERY_AFTER_MS, queues again the pushes that made no progress for that long (their
 * jobs were lost, or died mid-send with nothing to run them again), and forgets the fan-outs whose
 * every device has a final outcome (planPushRecovery decides). Every instance sweeps: the job ids
 * make their sweeps one job, and the claims make sure no device is pushed twice for one event.
 */
@Injectable()
export class PushRecoverySweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('PushRecoverySweep');
  private readonly recovered = counter('push_recovered_total', 'Pushes queued again by the recovery sweep (their jobs were lost), and fan-outs given up past their time to live.', ['outcome']);
  private readonly task = new RepeatingTask(
    () => this.sweep(Date.now()),
    (error) => this.logger.warn(`push recovery sweep failed: ${error.message}`),
  );
  private readonly times: PushRecoveryTimes;

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly repository: PushRepository,
    private readonly push: PushService,
  ) {
    this.times = {
      recoverAfterMs: config.JOB_RECOVERY_AFTER_MS,
      retryWaitMs: retryDelay(Math.max(1, config.PUSH_ATTEMPTS - 1), config.PUSH_BACKOFF_MS),
      giveUpAfterMs: config.PUSH_TTL_SECONDS * 1000,
    };
  }

  onApplicationBootstrap(): void {
    this.task.start(this.config.JOB_RECOVERY_INTERVAL_MS);
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  async sweep(now: number): Promise<void> {
    const before = new Date(now - this.times.recoverAfterMs);
    let after: PendingFanOut | undefined;
    for (;;) {
      const fanOuts = await this.repository.pendingFanOuts(before, after, PAGE);
      if (fanOuts.length === 0) return;
      const unfinished = await this.repository.unfinishedPushes(fanOuts.map((fanOut) => fanOut.eventId));
      const plan = planPushRecovery(now, this.times, fanOuts, unfinished);
      await this.push.queue(plan.jobs);
      await this.repository.forgetFanOuts([...plan.finished, ...plan.givenUp]);
      const pushes = plan.jobs.reduce((sum, job) => sum + job.data.targets.length, 0);
      if (pushes > 0) {
        this.recovered.inc({ outcome: 'queued' }, pushes);
        this.logger.warn(`queued again ${pushes} pushes of ${new Set(plan.jobs.map((job) => job.data.eventId)).size} events whose jobs made no progress for ${this.times.recoverAfterMs} ms`);
      }
      if (plan.givenUp.length > 0) {
        this.recovered.inc({ outcome: 'given_up' }, plan.givenUp.length);
        this.logger.warn(`gave up ${plan.givenUp.length} fan-outs older than the pushes' time to live`);
      }
      if (fanOuts.length < PAGE) return;
      after = fanOuts[fanOuts.length - 1];
    }
  }
}
