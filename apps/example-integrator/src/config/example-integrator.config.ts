import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { InProduction, IsHttpUrl, realSecret, ServiceConfig } from '@availability/service-core';

/** Settings of the reference integrator. Only INTEGRATOR_SECRET matters in a real deployment. */
export class ExampleIntegratorConfig extends ServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3004;

  /**
   * The secret entered with the base URL on the platform's company profile. Comma-separated to
   * accept two while you roll your own configuration over (the platform signs with both during a rotation).
   */
  @IsString()
  @IsNotEmpty()
  @InProduction(realSecret('dev-integrator-secret', 16))
  INTEGRATOR_SECRET = 'dev-integrator-secret';

  /**
   * Bearer token that `GET /received` and `DELETE /received` need (they show what the platform
   * sent). Empty leaves them open, which only development allows.
   */
  @IsString()
  @InProduction(realSecret())
  INTEGRATOR_RECEIVED_TOKEN = '';

  /** JSON file with the contacts offered as suggestions (array of spec 2.7 objects, optional `knownBy`). */
  @IsOptional()
  @IsString()
  INTEGRATOR_CONTACTS_FILE = '';

  /** The same as inline JSON; wins over the file. */
  @IsOptional()
  @IsString()
  INTEGRATOR_CONTACTS = '';

  /** How many webhook-ids are remembered for de-duplication. */
  @IsInt()
  @Min(1)
  INTEGRATOR_DEDUP_CAPACITY = 100_000;

  /** How many received webhooks `GET /received` keeps (oldest dropped first). */
  @IsInt()
  @Min(1)
  INTEGRATOR_RECEIVED_CAPACITY = 100_000;

  /** Largest clock difference accepted in a signature's timestamp. */
  @IsInt()
  @Min(0)
  INTEGRATOR_TOLERANCE_SECONDS = 300;

  /**
   * Which signature the webhooks (all but /test/auth) must carry: `hmac` with INTEGRATOR_SECRET; `v1`,
   * Standard Webhooks with the same secret; or `v1a`, the platform's ed25519 signature checked against
   * its key set (INTEGRATOR_KEY_SET_URL). `v1` and `v1a` also sign the webhook-id. Set
   * `signatureSchemes` on the company profile to include it. /test/auth is always `hmac` (spec 5).
   */
  @IsIn(['hmac', 'v1', 'v1a'])
  INTEGRATOR_SIGNATURE_SCHEME: 'hmac' | 'v1' | 'v1a' = 'hmac';

  /** The platform's published key set, e.g. `https://webhooks.platform.example/.well-known/webhook-keys.json`; required with `v1a`. */
  @ValidateIf((config: ExampleIntegratorConfig) => config.INTEGRATOR_KEY_SET_URL !== '' || config.INTEGRATOR_SIGNATURE_SCHEME === 'v1a')
  @IsHttpUrl()
  INTEGRATOR_KEY_SET_URL = '';
}

export function integratorSecrets(config: ExampleIntegratorConfig): string[] {
  return config.INTEGRATOR_SECRET.split(',').map((secret) => secret.trim()).filter((secret) => secret !== '');
}
