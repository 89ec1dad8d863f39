import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When notification-service recorded each answer: the digest sweep (DigestSweep) finds the offers
 * whose answers of the last windows still wait for their e-mail by it, through an index that holds
 * only the waiting answers.
 */
export class AnswerRecordedAt1765000000000 implements MigrationInterface {
  name = 'AnswerRecordedAt1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.offer_answer ADD COLUMN recorded_at timestamptz NOT NULL DEFAULT now()`);
    await runner.query(`CREATE INDEX offer_answer_waiting ON notifications.offer_answer (recorded_at) WHERE emailed_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX notifications.offer_answer_waiting`);
    await runner.query(`ALTER TABLE notifications.offer_answer DROP COLUMN recorded_at`);
  }
}
