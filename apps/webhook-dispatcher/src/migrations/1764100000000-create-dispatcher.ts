import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTableSql } from '@availability/messaging';

export class CreateDispatcher1764100000000 implements MigrationInterface {
  name = 'CreateDispatcher1764100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatcher.delivery (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        organisation_id varchar(64) NOT NULL,
        event_subject varchar(100) NOT NULL,
        webhook_id varchar(256) NOT NULL,
        method varchar(8) NOT NULL,
        path text NOT NULL,
        body text NOT NULL DEFAULT '',
        url text,
        status varchar(16) NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'dead', 'skipped')),
        attempts int NOT NULL DEFAULT 0,
        series int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_status_code int,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, organisation_id)
      )`);
    await runner.query(`CREATE INDEX delivery_organisation ON dispatcher.delivery (organisation_id, id DESC)`);
    await runner.query(`CREATE INDEX delivery_unfinished ON dispatcher.delivery (status, updated_at) WHERE status IN ('failed', 'dead')`);
    await runner.query(`
      CREATE TABLE dispatcher.attempt (
        delivery_id bigint NOT NULL REFERENCES dispatcher.delivery (id) ON DELETE CASCADE,
        attempt_no int NOT NULL,
        series int NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms int NOT NULL,
        status_code int,
        error_kind varchar(32),
        error_message text,
        response_excerpt text,
        PRIMARY KEY (delivery_id, attempt_no)
      )`);
    await runner.query(`
      CREATE TABLE dispatcher.endpoint (
        organisation_id varchar(64) PRIMARY KEY,
        base_url text,
        failing_since timestamptz,
        disabled_at timestamptz,
        disabled_reason text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const statement of createOutboxTableSql('dispatcher')) await runner.query(statement);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatcher.outbox, dispatcher.endpoint, dispatcher.attempt, dispatcher.delivery`);
  }
}
