import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test events an organisation sends itself from the portal are deliveries like any other (logged,
 * retried, redeliverable); `test` tells them apart in the log and puts the test header on each attempt.
 * A constant default: existing rows are not rewritten.
 */
export class TestDeliveries1764700000000 implements MigrationInterface {
  name = 'TestDeliveries1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery ADD COLUMN test boolean NOT NULL DEFAULT false`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery DROP COLUMN test`);
  }
}
