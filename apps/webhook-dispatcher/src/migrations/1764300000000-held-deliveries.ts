import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries held back while their endpoint's circuit is open wait here, in the delivery log, rather
 * than as jobs cycling through Redis: `held_at` is set while a delivery is held (it is then pending or
 * failed and has no job). The partial index finds the held deliveries of an endpoint, due first.
 */
export class HeldDeliveries1764300000000 implements MigrationInterface {
  name = 'HeldDeliveries1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery ADD COLUMN held_at timestamptz`);
    await runner.query(
      `CREATE INDEX delivery_held ON dispatcher.delivery (organisation_id, next_attempt_at NULLS FIRST, id) WHERE held_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX dispatcher.delivery_held`);
    await runner.query(`ALTER TABLE dispatcher.delivery DROP COLUMN held_at`);
  }
}
