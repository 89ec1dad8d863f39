import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in by e-mailed link: single-use codes (only their SHA-256 is kept), each for one portal user
 * or one worker, and an expiry on worker and portal-user tokens (null: no expiry, as operators' tokens).
 */
export class SignInCodes1764900000000 implements MigrationInterface {
  name = 'SignInCodes1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE directory.sign_in_code (
        code_hash char(64) PRIMARY KEY,
        subject_kind varchar(16) NOT NULL CHECK (subject_kind IN ('user', 'worker')),
        user_id uuid REFERENCES directory.portal_user (id),
        worker_id uuid REFERENCES directory.worker (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        CONSTRAINT sign_in_code_subject CHECK (
          (subject_kind = 'user' AND user_id IS NOT NULL AND worker_id IS NULL) OR
          (subject_kind = 'worker' AND worker_id IS NOT NULL AND user_id IS NULL))
      )`);
    // Expired codes are deleted as new ones are made.
    await runner.query(`CREATE INDEX sign_in_code_expires ON directory.sign_in_code (expires_at)`);
    // Looking people up by address, ignoring case.
    await runner.query(`CREATE INDEX portal_user_email ON directory.portal_user (lower(email))`);
    await runner.query(`CREATE INDEX worker_email ON directory.worker (lower(email)) WHERE email IS NOT NULL`);
    await runner.query(`ALTER TABLE directory.worker_token ADD COLUMN expires_at timestamptz`);
    await runner.query(`ALTER TABLE directory.portal_user_token ADD COLUMN expires_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE directory.portal_user_token DROP COLUMN expires_at`);
    await runner.query(`ALTER TABLE directory.worker_token DROP COLUMN expires_at`);
    await runner.query(`DROP INDEX directory.worker_email`);
    await runner.query(`DROP INDEX directory.portal_user_email`);
    await runner.query(`DROP TABLE directory.sign_in_code`);
  }
}
