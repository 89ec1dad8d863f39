import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recipients lose the foreign key to their offer. It was checked once per recipient row, and an
 * offer to 10,000 workers paid about 40 ms of PostgreSQL time for checks that cannot fail: recipients
 * are written only by the statement that writes their offer (`INSERT_OFFER`), and no offer is ever
 * deleted. docs/architecture.md, "Recipients and their offer".
 */
export class RecipientWithoutOfferCheck1764400000000 implements MigrationInterface {
  name = 'RecipientWithoutOfferCheck1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.recipient DROP CONSTRAINT IF EXISTS recipient_offer_id_fkey`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE offers.recipient ADD CONSTRAINT recipient_offer_id_fkey FOREIGN KEY (offer_id) REFERENCES offers.offer (id)`);
  }
}
