import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Invitation e-mails each organisation sent each day (UTC), for INVITATIONS_PER_ORGANISATION_PER_DAY. */
export class InvitationsSent1765100000000 implements MigrationInterface {
  name = 'InvitationsSent1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE directory.invitations_sent (
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        day date NOT NULL,
        sent integer NOT NULL CHECK (sent >= 0),
        PRIMARY KEY (organisation_id, day)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE directory.invitations_sent`);
  }
}
