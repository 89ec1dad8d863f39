import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTableSql } from '@availability/messaging';

export class CreateDirectory1763900000000 implements MigrationInterface {
  name = 'CreateDirectory1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE directory.organisation (
        id uuid PRIMARY KEY,
        name varchar(200) NOT NULL,
        kind varchar(16) NOT NULL CHECK (kind IN ('hirer', 'agency', 'integrator')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE directory.api_key (
        id uuid PRIMARY KEY,
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        name varchar(100) NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        key_prefix varchar(12) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX api_key_organisation ON directory.api_key (organisation_id)`);
    await runner.query(`
      CREATE TABLE directory.portal_user (
        id uuid PRIMARY KEY,
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        email varchar(320) NOT NULL,
        name varchar(200) NOT NULL,
        role varchar(16) NOT NULL CHECK (role IN ('admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE UNIQUE INDEX portal_user_organisation_email ON directory.portal_user (organisation_id, lower(email))`);
    await runner.query(`
      CREATE TABLE directory.worker (
        id uuid PRIMARY KEY,
        name varchar(200) NOT NULL,
        email varchar(320),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE directory.organisation_worker (
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        worker_id uuid NOT NULL REFERENCES directory.worker (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organisation_id, worker_id)
      )`);
    await runner.query(`CREATE INDEX organisation_worker_worker ON directory.organisation_worker (worker_id)`);
    await runner.query(`
      CREATE TABLE directory.worker_token (
        id uuid PRIMARY KEY,
        worker_id uuid NOT NULL REFERENCES directory.worker (id),
        token_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX worker_token_worker ON directory.worker_token (worker_id)`);
    for (const statement of createOutboxTableSql('directory')) await runner.query(statement);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DROP TABLE directory.outbox, directory.worker_token, directory.organisation_worker, directory.worker,
                  directory.portal_user, directory.api_key, directory.organisation`,
    );
  }
}
