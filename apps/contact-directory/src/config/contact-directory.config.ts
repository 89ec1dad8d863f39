import { IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { ConfigValidationError, ServiceConfig } from '@availability/service-core';

/** Shortest admin token accepted in production. */
export const MIN_PRODUCTION_ADMIN_TOKEN_LENGTH = 32;

export class ContactDirectoryConfig extends ServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3001;

  /**
   * Bearer token of the admin API (platform operators, the CLI, tests, benchmarks). The default only
   * suits a development machine: in production it must be set, and at least 32 characters long.
   */
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  DIRECTORY_ADMIN_TOKEN = 'dev-admin-token';
}

/**
 * Start-up rule that depends on two settings: in production the admin token must be set and long.
 * Messages name the variable, never the value.
 */
export function assertAdminTokenAllowed(config: ContactDirectoryConfig): void {
  if (config.NODE_ENV !== 'production') return;
  if (config.DIRECTORY_ADMIN_TOKEN.length < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH) {
    throw new ConfigValidationError([
      `DIRECTORY_ADMIN_TOKEN: must be set to at least ${MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters when NODE_ENV is production`,
    ]);
  }
}
