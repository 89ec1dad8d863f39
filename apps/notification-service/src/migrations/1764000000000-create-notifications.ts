import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateNotifications1764000000000 implements MigrationInterface {
  name = 'CreateNotifications1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    // Device tokens are up to 4 KiB: too long for a b-tree key, so uniqueness is on their SHA-256.
    await runner.query(`
      CREATE TABLE notifications.device (
        id uuid PRIMARY KEY,
        worker_id varchar(64) NOT NULL,
        token text NOT NULL,
        token_hash char(64) NOT NULL UNIQUE,
        platform varchar(8) NOT NULL CHECK (platform IN ('ios', 'android')),
        app_version varchar(64) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX device_worker ON notifications.device (worker_id)`);

    // What each worker was told (whether or not a push reached a device): the app's notification list.
    await runner.query(`
      CREATE TABLE notifications.worker_notification (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        worker_id varchar(64) NOT NULL,
        organisation_id uuid NOT NULL,
        kind varchar(32) NOT NULL,
        offer_id uuid NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, worker_id)
      )`);
    await runner.query(`CREATE INDEX worker_notification_worker ON notifications.worker_notification (worker_id, id DESC)`);

    // One row per (event, device): the push log, and the guard against a second push of one event to one device.
    await runner.query(`
      CREATE TABLE notifications.push_delivery (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        worker_id varchar(64) NOT NULL,
        device_id uuid NOT NULL,
        kind varchar(32) NOT NULL,
        offer_id uuid NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('sending', 'sent', 'retrying', 'failed', 'token_removed')),
        claimed_by text,
        error_code varchar(100),
        message_id text,
        attempts integer NOT NULL DEFAULT 0,
        sent_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, device_id)
      )`);
    await runner.query(`CREATE INDEX push_delivery_offer ON notifications.push_delivery (offer_id)`);

    // Read model fed by offers.created: who to e-mail about an offer's answers.
    await runner.query(`
      CREATE TABLE notifications.offer (
        offer_id uuid PRIMARY KEY,
        organisation_id uuid NOT NULL,
        title text NOT NULL,
        created_by_user_id varchar(128) NOT NULL,
        notify_email_address varchar(320),
        closed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Answers waiting for the next digest e-mail to the offer's notify address.
    await runner.query(`
      CREATE TABLE notifications.offer_answer (
        event_id uuid PRIMARY KEY,
        offer_id uuid NOT NULL,
        worker_id varchar(64) NOT NULL,
        response varchar(16) NOT NULL,
        previous_response varchar(16) NOT NULL DEFAULT '',
        responded_at timestamptz NOT NULL,
        emailed_at timestamptz
      )`);
    await runner.query(`CREATE INDEX offer_answer_pending ON notifications.offer_answer (offer_id, responded_at) WHERE emailed_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DROP TABLE notifications.offer_answer, notifications.offer, notifications.push_delivery, notifications.worker_notification, notifications.device`,
    );
  }
}
