import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The recovery sweep looks for deliveries that are neither finished nor held and whose attempt is long
 * overdue (their job was lost with Redis's data): this partial index holds only those candidates.
 */
export class OverdueDeliveries1764400000000 implements MigrationInterface {
  name = 'OverdueDeliveries1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX delivery_due ON dispatcher.delivery ((COALESCE(next_attempt_at, updated_at))) WHERE status IN ('pending', 'failed') AND held_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX dispatcher.delivery_due`);
  }
}
