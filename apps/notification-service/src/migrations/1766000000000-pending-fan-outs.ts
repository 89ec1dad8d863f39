import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The offer events whose pushes are not yet known to be finished: written with the event's worker
 * notifications, deleted by the push recovery sweep once every device has a final outcome. The
 * sweep queues again, from here, the pushes whose jobs Redis lost (PushRecoverySweep).
 */
export class PendingFanOuts1766000000000 implements MigrationInterface {
  name = 'PendingFanOuts1766000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE notifications.pending_fan_out (
        event_id uuid PRIMARY KEY,
        offer_id uuid NOT NULL,
        organisation_id uuid NOT NULL,
        offer_title text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX pending_fan_out_created ON notifications.pending_fan_out (created_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE notifications.pending_fan_out`);
  }
}
