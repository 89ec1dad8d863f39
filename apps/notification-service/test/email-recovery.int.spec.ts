import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { queryDatabase, type TestDatabase } from '@availability/testing';
import type { NotificationServiceConfig } from '../src/config/notification-service.config.js';
import { EmailRecoverySweep } from '../src/email/email-recovery-sweep.js';
import { EmailRepository } from '../src/email/email.repository.js';
import { type EmailJob, EmailService } from '../src/email/email.service.js';
import type { Mailer } from '../src/email/mailer.js';
import { notificationsDatabase } from './helpers.js';

/**
 * The e-mail recovery sweeps of several instances on real PostgreSQL: an e-mail whose job was lost is
 * queued again by one of them, once, even when their sweeps fall on either side of a period boundary
 * (where the recovery job ids differ and BullMQ cannot tell the two jobs are one).
 */
const RECOVER_AFTER_MS = 60_000;
const SMTP_TIMEOUT_MS = 15_000;
const config = { JOB_RECOVERY_AFTER_MS: RECOVER_AFTER_MS, JOB_RECOVERY_INTERVAL_MS: 60_000, EMAIL_BACKOFF_MS: 1_000, EMAIL_ATTEMPTS: 3, SMTP_TIMEOUT_MS } as NotificationServiceConfig;
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

/** The SMTP relay as EmailService sees it: each message sent is recorded; `hold` keeps a send open until released. */
class RecordingMailer {
  readonly sent: string[] = [];
  private held?: Promise<void>;
  private release?: () => void;

  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  letGo(): void {
    this.release?.();
  }

  async send(message: { subject: string }): Promise<string> {
    this.sent.push(message.subject);
    await this.held;
    return 'sent';
  }
}

/** An e-mail job as BullMQ hands it to EmailService.runJob. */
function jobFor(id: string, pendingId: string) {
  const data: EmailJob = { kind: 'send', id: pendingId, message: { to: ['ops@example.test'], subject: `e-mail ${pendingId}`, text: 'hello' } };
  return { id, data, opts: { attempts: 3, removeOnComplete: { age: 60 } }, attemptsMade: 0 } as unknown as Parameters<EmailService['runJob']>[0];
}

describe('an e-mail queued again by a sweep', () => {
  // The sweeps below run at times far ahead: only this test's e-mail may be pending.
  beforeEach(() => queryDatabase(database.url, 'DELETE FROM notifications.pending_email'));
  const mailing = () => {
    const mailer = new RecordingMailer();
    return { mailer, service: new EmailService(config, {} as never, repository, mailer as unknown as Mailer, {} as never) };
  };

  it('is sent once when both its jobs run: the one queued last sends, the one it replaced does nothing', async () => {
    const [jobId] = await lostEmails(1);
    const first = instance();
    await first.sweep.sweep(Date.now());
    // The job queued again is slow to start, so a later sweep takes it for lost too.
    const later = instance();
    await later.sweep.sweep(Date.now() + 2 * RECOVER_AFTER_MS + 10_000);
    const [replaced] = first.queued.jobs.filter((job) => job.jobId === jobId);
    const [last] = later.queued.jobs.filter((job) => job.jobId === jobId);
    expect(last.recoveryJobId).not.toBe(replaced.recoveryJobId);

    const { mailer, service } = mailing();
    await service.runJob(jobFor(replaced.recoveryJobId, jobId));
    await service.runJob(jobFor(last.recoveryJobId, jobId));
    await service.runJob(jobFor(jobId, jobId));
    expect(mailer.sent).toEqual([`e-mail ${jobId}`]);
    expect(await queryDatabase(database.url, 'SELECT 1 FROM notifications.pending_email WHERE job_id = $1', [jobId])).toEqual([]);
  });

  it('is not queued again while an attempt is under way, for as long as the send may take', async () => {
    const [jobId] = await lostEmails(1);
    const first = instance();
    await first.sweep.sweep(Date.now());
    const [queued] = first.queued.jobs.filter((job) => job.jobId === jobId);

    const { mailer, service } = mailing();
    mailer.hold();
    const running = service.runJob(jobFor(queued.recoveryJobId, jobId));
    await eventuallySent(mailer);
    const meanwhile = instance();
    await meanwhile.sweep.sweep(Date.now() + RECOVER_AFTER_MS + 2 * config.EMAIL_BACKOFF_MS + SMTP_TIMEOUT_MS / 2);
    mailer.letGo();
    await running;
    expect(meanwhile.queued.jobs.some((job) => job.jobId === jobId)).toBe(false);
  });
});

async function eventuallySent(mailer: RecordingMailer): Promise<void> {
  while (mailer.sent.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
}
