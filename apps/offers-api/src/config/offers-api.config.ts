import { IsInt, Max, Min } from 'class-validator';
import { ServiceConfig } from '@availability/service-core';

export class OffersApiConfig extends ServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** How long a worker's name and membership are cached. */
  @IsInt()
  @Min(0)
  DIRECTORY_CACHE_TTL_MS = 60_000;
}
