import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A queued attempt claims its delivery before it calls (DeliveriesRepository.claimAttempt): who holds
 * the claim, and since when. Cleared when an attempt is recorded and when a new series starts.
 */
export class AttemptClaims1765100000000 implements MigrationInterface {
  name = 'AttemptClaims1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery ADD COLUMN claimed_by text, ADD COLUMN claimed_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatcher.delivery DROP COLUMN claimed_by, DROP COLUMN claimed_at`);
  }
}
