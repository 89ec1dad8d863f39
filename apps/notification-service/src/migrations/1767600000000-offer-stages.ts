import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The highest stage of each offer pushed to each worker, and the event that recorded it
 * (OfferStageRule): a push of a lower stage, or a second final one, is logged `superseded` and not sent.
 */
export class OfferStages1767600000000 implements MigrationInterface {
  name = 'OfferStages1767600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE IF NOT EXISTS notifications.offer_stage (
         offer_id uuid NOT NULL,
         worker_id varchar(64) NOT NULL,
         stage_order smallint NOT NULL,
         event_id uuid NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (offer_id, worker_id)
       )`,
    );
    await runner.query(`CREATE INDEX IF NOT EXISTS offer_stage_updated ON notifications.offer_stage (updated_at)`);
    await runner.query(`ALTER TABLE notifications.push_delivery DROP CONSTRAINT IF EXISTS push_delivery_status_check`);
    await runner.query(
      `ALTER TABLE notifications.push_delivery ADD CONSTRAINT push_delivery_status_check
         CHECK (status IN ('sending', 'sent', 'retrying', 'failed', 'token_removed', 'superseded'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE notifications.push_delivery DROP CONSTRAINT IF EXISTS push_delivery_status_check`);
    await runner.query(
      `ALTER TABLE notifications.push_delivery ADD CONSTRAINT push_delivery_status_check
         CHECK (status IN ('sending', 'sent', 'retrying', 'failed', 'token_removed'))`,
    );
    await runner.query(`DROP TABLE notifications.offer_stage`);
  }
}
