import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How often each address with accounts was sent sign-in e-mails (SignInMailPace): keyed by the
 * SHA-256 of the address in lower case, so the table names nobody.
 */
export class SignInMailPace1766300000000 implements MigrationInterface {
  name = 'SignInMailPace1766300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE directory.sign_in_mail_pace (
        address_hash char(64) PRIMARY KEY,
        window_started_at timestamptz,
        mails_in_window integer NOT NULL DEFAULT 0,
        last_mail_at timestamptz
      )`);
    // Addresses not e-mailed for a day are deleted as others are e-mailed.
    await runner.query(`CREATE INDEX sign_in_mail_pace_last ON directory.sign_in_mail_pace (last_mail_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE directory.sign_in_mail_pace`);
  }
}
