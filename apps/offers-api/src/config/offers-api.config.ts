import { IsInt, Max, Min } from 'class-validator';
import { BusServiceConfig } from '@availability/service-core';

export class OffersApiConfig extends BusServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** How long a worker's name and membership are cached. */
  @IsInt()
  @Min(0)
  DIRECTORY_CACHE_TTL_MS = 60_000;
}
