import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An offer response's `sequence` on its delivery (null for a delivery of any other event, or of an
 * answer from a producer without one), and the final status `superseded`: an answer not sent because
 * a newer one from the same worker about the same offer is in the log. The status check is replaced
 * NOT VALID: every row written so far met the narrower check, so no scan under the table's lock.
 */
export class AnswerSequence1767600000000 implements MigrationInterface {
  name = 'AnswerSequence1767600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery ADD COLUMN sequence int`);
    await runner.query(`ALTER TABLE dispatcher.delivery DROP CONSTRAINT delivery_status_check`);
    await runner.query(
      `ALTER TABLE dispatcher.delivery ADD CONSTRAINT delivery_status_check
       CHECK (status IN ('pending', 'succeeded', 'failed', 'dead', 'skipped', 'superseded')) NOT VALID`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`UPDATE dispatcher.delivery SET status = 'dead' WHERE status = 'superseded'`);
    await runner.query(`ALTER TABLE dispatcher.delivery DROP CONSTRAINT delivery_status_check`);
    await runner.query(`ALTER TABLE dispatcher.delivery ADD CONSTRAINT delivery_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'dead', 'skipped'))`);
    await runner.query(`ALTER TABLE dispatcher.delivery DROP COLUMN sequence`);
  }
}
