import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may receive searches and who is asked: an operator's approval of an organisation as a
 * suggestion provider (integrators are providers by kind), and each organisation's own choice of the
 * providers its searches go to when it names none.
 */
export class SuggestionProviderConsent1764300000000 implements MigrationInterface {
  name = 'SuggestionProviderConsent1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE directory.organisation ADD COLUMN suggestion_provider_approved boolean NOT NULL DEFAULT false`);
    await runner.query(`
      CREATE TABLE directory.suggestion_provider_choice (
        organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        provider_organisation_id uuid NOT NULL REFERENCES directory.organisation (id),
        enabled_by_user_id uuid,
        enabled_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organisation_id, provider_organisation_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE directory.suggestion_provider_choice`);
    await runner.query(`ALTER TABLE directory.organisation DROP COLUMN suggestion_provider_approved`);
  }
}
