import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTableSql } from '@availability/messaging';

export class CreateOffers1763800000000 implements MigrationInterface {
  name = 'CreateOffers1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE offers.offer (
        id uuid PRIMARY KEY,
        organisation_id uuid NOT NULL,
        created_by_user_id varchar(128) NOT NULL,
        title varchar(200) NOT NULL,
        details text NOT NULL DEFAULT '',
        location_place_id varchar(256) NOT NULL DEFAULT '',
        notify_email_address varchar(320),
        events jsonb NOT NULL,
        ends_at timestamptz NOT NULL,
        widthdrawn boolean NOT NULL DEFAULT false,
        complete boolean NOT NULL DEFAULT false,
        is_historic boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX offer_organisation_created ON offers.offer (organisation_id, created_at DESC)`);
    await runner.query(`
      CREATE TABLE offers.recipient (
        -- The spec's integer recipient id: unique by its sequence, never looked up, so not indexed.
        id bigserial NOT NULL,
        offer_id uuid NOT NULL REFERENCES offers.offer (id),
        worker_id varchar(64) NOT NULL,
        name varchar(200) NOT NULL,
        response varchar(16) NOT NULL DEFAULT 'awaiting' CHECK (response IN ('awaiting', 'applied', 'rejected')),
        confirmation varchar(16) NOT NULL DEFAULT '' CHECK (confirmation IN ('', 'successful', 'unsuccessful', 'withdrawn')),
        responded_at timestamptz,
        PRIMARY KEY (offer_id, worker_id)
      )`);
    await runner.query(`CREATE INDEX recipient_worker ON offers.recipient (worker_id, id)`);
    await runner.query(`
      CREATE TABLE offers.idempotency_key (
        organisation_id uuid NOT NULL,
        key varchar(255) NOT NULL,
        request_hash char(64) NOT NULL,
        offer_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organisation_id, key)
      )`);
    for (const statement of createOutboxTableSql('offers')) await runner.query(statement);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE offers.outbox, offers.idempotency_key, offers.recipient, offers.offer`);
  }
}
