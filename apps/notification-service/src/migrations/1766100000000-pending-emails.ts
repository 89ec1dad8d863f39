import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The e-mails queued and not yet finished (sent, or given up by their job), with their job's data:
 * the e-mail recovery sweep queues again, from here, those whose jobs Redis lost (EmailRecoverySweep).
 * `progress_at` is when the job was queued to run, or last began an attempt. Sign-in e-mails are not
 * kept here: their codes are kept nowhere but in their job.
 */
export class PendingEmails1766100000000 implements MigrationInterface {
  name = 'PendingEmails1766100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE notifications.pending_email (
        job_id text PRIMARY KEY,
        job jsonb NOT NULL,
        progress_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX pending_email_progress ON notifications.pending_email (progress_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE notifications.pending_email`);
  }
}
