import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How each organisation's calls are signed (libs/webhook-signing SignatureScheme): the spec's `hmac`,
 * Standard Webhooks `v1` (both with the shared secret) and `v1a` (the platform's ed25519 key). Existing
 * profiles keep what they had: `hmac` and `v1`.
 */
export class SignatureSchemes1764400000000 implements MigrationInterface {
  name = 'SignatureSchemes1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE directory.company_profile
        ADD COLUMN signature_schemes text[] NOT NULL DEFAULT '{hmac,v1}'
        CONSTRAINT company_profile_signature_schemes_known
          CHECK (cardinality(signature_schemes) > 0 AND signature_schemes <@ '{hmac,v1,v1a}'::text[])`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE directory.company_profile DROP COLUMN signature_schemes`);
  }
}
