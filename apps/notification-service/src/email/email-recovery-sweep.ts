import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { counter, RepeatingTask } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { type EmailRecoveryTimes, emailRecoverySuffix, emailStalledBefore } from './email-recovery.js';
import { EmailRepository } from './email.repository.js';
import { type EmailJob, EmailService } from './email.service.js';

/** Pending e-mails read at a time. */
const PAGE = 200;

/**
 * E-mails survive the loss of Redis's data. Each one (but sign-in links) is kept in `pending_email`
 * until its job finishes; every JOB_RECOVERY_INTERVAL_MS this sweep claims those whose job made no
 * progress for JOB_RECOVERY_AFTER_MS beyond its longest back-off, marking them as progressing so the
 * next sweeps give the new job as long, and queues them again. Every instance sweeps; each e-mail is
 * claimed by one of them, and sent only by the job it was last queued under.
 */
@Injectable()
export class EmailRecoverySweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EmailRecoverySweep');
  private readonly recovered = counter('email_recovered_total', 'E-mails queued again by the recovery sweep: their jobs made no progress for JOB_RECOVERY_AFTER_MS beyond their back-off.');
  private readonly task = new RepeatingTask(
    () => this.sweep(Date.now()),
    (error) => this.logger.warn(`e-mail recovery sweep failed: ${error.message}`),
  );
  private readonly times: EmailRecoveryTimes;

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly repository: EmailRepository,
    private readonly email: EmailService,
  ) {
    this.times = { recoverAfterMs: config.JOB_RECOVERY_AFTER_MS, backoffMs: config.EMAIL_BACKOFF_MS, attempts: config.EMAIL_ATTEMPTS };
  }

  onApplicationBootstrap(): void {
    this.task.start(this.config.JOB_RECOVERY_INTERVAL_MS);
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  async sweep(now: number): Promise<void> {
    const before = emailStalledBefore(now, this.times);
    // Each page is claimed (marked as progressing) before it is queued, so the next read finds the ones
    // after it and another instance's sweep never queues the same e-mail under its own period's job id.
    // Dying between the two leaves an e-mail to the sweeps after the next JOB_RECOVERY_AFTER_MS.
    for (;;) {
      const stalled = await this.repository.claimStalledPendingEmails(before, PAGE, emailRecoverySuffix(now, this.times.recoverAfterMs));
      if (stalled.length === 0) return;
      await this.email.requeue(stalled.map(({ jobId, recoveryJobId, job }) => ({ jobId, recoveryJobId, job: job as EmailJob })));
      this.recovered.inc(stalled.length);
      this.logger.warn(`queued again ${stalled.length} e-mails whose jobs made no progress for ${this.times.recoverAfterMs} ms beyond their back-off`);
      if (stalled.length < PAGE) return;
    }
  }
}
