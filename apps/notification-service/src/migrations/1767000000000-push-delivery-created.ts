import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each push row was written: the push log's age for its retention. A constant default for the
 * rows already there (now() is evaluated once, so the table is not rewritten): they are pruned one
 * retention period after this migration. Never updated, so an index on it leaves the claims' and
 * outcomes' updates of a row in place (HOT), as they are today.
 */
export class PushDeliveryCreated1767000000000 implements MigrationInterface {
  name = 'PushDeliveryCreated1767000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.push_delivery ADD COLUMN IF NOT EXISTS created_at timestamptz NOT NULL DEFAULT now()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.push_delivery DROP COLUMN created_at`);
  }
}
