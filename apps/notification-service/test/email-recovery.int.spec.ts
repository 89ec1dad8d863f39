import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { queryDatabase, type TestDatabase } from '@availability/testing';
import type { NotificationServiceConfig } from '../src/config/notification-service.config.js';
import { EmailRecoverySweep } from '../src/email/email-recovery-sweep.js';
import { EmailRepository } from '../src/email/email.repository.js';
import type { EmailService } from '../src/email/email.service.js';
import { notificationsDatabase } from './helpers.js';

/**
 * The e-mail recovery sweeps of several instances on real PostgreSQL: an e-mail whose job was lost is
 * queued again by one of them, once, even when their sweeps fall on either side of a period boundary
 * (where the recovery job ids differ and BullMQ cannot tell the two jobs are one).
 */
const RECOVER_AFTER_MS = 60_000;
const config = { JOB_RECOVERY_AFTER_MS: RECOVER_AFTER_MS, JOB_RECOVERY_INTERVAL_MS: 60_000, EMAIL_BACKOFF_MS: 1_000, EMAIL_ATTEMPTS: 3 } as NotificationServiceConfig;
let database: TestDatabase;
let dataSource: DataSource;
let repository: EmailRepository;

/** What an instance queued again: the part of EmailService a sweep calls, recorded instead of queued. */
class QueuedAgain {
  readonly jobs: Array<{ jobId: string; recoveryJobId: string }> = [];
  requeue(emails: ReadonlyArray<{ jobId: string; recoveryJobId: string }>): Promise<void> {
    this.jobs.push(...emails.map(({ jobId, recoveryJobId }) => ({ jobId, recoveryJobId })));
    return Promise.resolve();
  }
}

function instance(): { sweep: EmailRecoverySweep; queued: QueuedAgain } {
  const queued = new QueuedAgain();
  return { sweep: new EmailRecoverySweep(config, repository, queued as unknown as EmailService), queued };
}

/** `count` e-mails pending since long ago, their jobs gone. */
async function lostEmails(count: number): Promise<string[]> {
  const jobIds = Array.from({ length: count }, () => `invite.${randomUUID()}`);
  for (const jobId of jobIds) await repository.recordPendingEmail(jobId, { kind: 'send', id: jobId }, new Date(Date.now() - 3_600_000));
  return jobIds;
}

beforeAll(async () => {
  ({ database, dataSource } = await notificationsDatabase('email-recovery-spec'));
  repository = new EmailRepository(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe('e-mail recovery across instances', () => {
  it('three instances sweeping at once, on either side of a period boundary, queue each lost e-mail once', async () => {
    const lost = await lostEmails(450);
    const boundary = Math.ceil(Date.now() / RECOVER_AFTER_MS) * RECOVER_AFTER_MS;
    const instances = [instance(), instance(), instance()];
    await Promise.all(instances.map(({ sweep }, i) => sweep.sweep(boundary + (i - 1) * 5)));

    const queued = instances.flatMap(({ queued }) => queued.jobs);
    expect(queued.map((job) => job.jobId).sort()).toEqual([...lost].sort());
    // Each under the recovery id of the period its sweep ran in.
    expect(new Set(queued.map((job) => job.recoveryJobId)).size).toBe(lost.length);
  });

  it('an e-mail queued again is given its new job’s time before it is queued again', async () => {
    const [jobId] = await lostEmails(1);
    const first = instance();
    await first.sweep.sweep(Date.now());
    expect(first.queued.jobs.map((job) => job.jobId)).toContain(jobId);

    const later = instance();
    await later.sweep.sweep(Date.now() + 1_000);
    expect(later.queued.jobs.map((job) => job.jobId)).not.toContain(jobId);
    const [row] = await queryDatabase<{ progress_at: Date }>(database.url, 'SELECT progress_at FROM notifications.pending_email WHERE job_id = $1', [jobId]);
    expect(Date.now() - row.progress_at.getTime()).toBeLessThan(10_000);
  });
});
