import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A version on each offer, bumped by every change to it or its recipients: lets readers cache the offer safely. */
export class OfferVersion1763810000000 implements MigrationInterface {
  name = 'OfferVersion1763810000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.offer ADD COLUMN version integer NOT NULL DEFAULT 1`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.offer DROP COLUMN version`);
  }
}
