import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal-user tokens, the company profile (webhook base URL + encrypted secrets, suggestions flag),
 * invitations and workers' contacts.
 */
export class PortalAndContacts1764000000000 implements MigrationInterface {
  name = 'PortalAndContacts1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE directory.portal_user_token (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES directory.portal_user (id),
        token_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX portal_user_token_user ON directory.portal_user_token (user_id)`);
    // Secrets are AES-256-GCM ciphertexts (never plaintext); the previous one signs until previous_secret_until.
    await runner.query(`
      CREATE TABLE directory.company_profile (
        organisation_id uuid PRIMARY KEY REFERENCES directory.organisation (id),
        webhook_base_url varchar(2000) NOT NULL,
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_until timestamptz,
        suggestions_enabled boolean NOT NULL DEFAULT false,
        saved_at timestamptz NOT NULL DEFAULT now(),
        saved_by_user_id uuid
      )`);
    await runner.query(`CREATE INDEX company_profile_suggestions ON directory.company_profile (organisation_id) WHERE suggestions_enabled`);
    await runner.query(`
      CREATE TABLE directory.invitation (
        id uuid PRIMARY KEY,
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        invited_by_user_id uuid NOT NULL REFERENCES directory.portal_user (id),
        name varchar(200) NOT NULL,
        email varchar(320) NOT NULL,
        suggested_by_organisation_id uuid REFERENCES directory.organisation (id),
        status varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'cancelled')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX invitation_pending_email ON directory.invitation (organisation_id, lower(email)) WHERE status = 'pending'`,
    );
    await runner.query(`
      CREATE TABLE directory.worker_contact (
        id uuid PRIMARY KEY,
        worker_id uuid NOT NULL REFERENCES directory.worker (id),
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (worker_id, organisation_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE directory.worker_contact, directory.invitation, directory.company_profile, directory.portal_user_token`);
  }
}
