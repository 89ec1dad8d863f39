import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebPushSubscriptions1764700000000 implements MigrationInterface {
  name = 'WebPushSubscriptions1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    // A browser's Web Push subscription: the third push channel beside FCM's iOS and Android devices.
    // Its id shares push_delivery.device_id with devices (both random uuids), so the same claims cover it.
    // Uniqueness is on the endpoint's SHA-256, as for device tokens.
    await runner.query(`
      CREATE TABLE notifications.web_push_subscription (
        id uuid PRIMARY KEY,
        worker_id varchar(64) NOT NULL,
        endpoint text NOT NULL,
        endpoint_hash char(64) NOT NULL UNIQUE,
        p256dh varchar(100) NOT NULL,
        auth varchar(32) NOT NULL,
        expiration_time timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX web_push_subscription_worker ON notifications.web_push_subscription (worker_id, updated_at DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE notifications.web_push_subscription`);
  }
}
