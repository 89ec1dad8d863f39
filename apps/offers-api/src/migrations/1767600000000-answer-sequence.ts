import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Each recipient's answer counter, bumped by the statement that records an answer: the `sequence` integrators order answers by. */
export class AnswerSequence1767600000000 implements MigrationInterface {
  name = 'AnswerSequence1767600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.recipient ADD COLUMN answer_sequence integer NOT NULL DEFAULT 0`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.recipient DROP COLUMN answer_sequence`);
  }
}
