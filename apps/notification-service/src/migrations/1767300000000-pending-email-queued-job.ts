import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The job a pending e-mail was last queued again under (EmailRecoverySweep). Only that job sends it;
 * one it replaced, should it still run, does nothing. Null: not queued again, or by an instance from
 * before this column, and then whichever job runs sends it, as before.
 */
export class PendingEmailQueuedJob1767300000000 implements MigrationInterface {
  name = 'PendingEmailQueuedJob1767300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.pending_email ADD COLUMN IF NOT EXISTS queued_job_id text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.pending_email DROP COLUMN IF EXISTS queued_job_id`);
  }
}
