import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The portal lists an organisation's offers newest first, a page at a time after the last offer of
 * the page before (created_at, then id, as two offers may share a microsecond). This index serves
 * that order and that cursor as one range scan; it replaces the index on (organisation_id,
 * created_at), its prefix, which nothing else used.
 */
export class OfferOrganisationPage1764900000000 implements MigrationInterface {
  name = 'OfferOrganisationPage1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX IF NOT EXISTS offer_organisation_page ON offers.offer (organisation_id, created_at DESC, id DESC)`);
    await runner.query(`DROP INDEX IF EXISTS offers.offer_organisation_created`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX IF NOT EXISTS offer_organisation_created ON offers.offer (organisation_id, created_at DESC)`);
    await runner.query(`DROP INDEX IF EXISTS offers.offer_organisation_page`);
  }
}
