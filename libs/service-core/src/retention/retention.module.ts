import { type DynamicModule, Module } from '@nestjs/common';
import type { BusServiceConfig } from '../config/service.config.js';
import { Pruner, RETENTION_OPTIONS, type RetentionClass, type RetentionOptions } from './pruner.js';

/** The pruning settings every service with a database shares (RETENTION_*). */
export function retentionOptions(config: Pick<BusServiceConfig, 'RETENTION_INTERVAL_MS' | 'RETENTION_BATCH_ROWS' | 'RETENTION_RUN_MS'>, classes: RetentionClass[]): RetentionOptions {
  return { classes, intervalMs: config.RETENTION_INTERVAL_MS, batchRows: config.RETENTION_BATCH_ROWS, runMs: config.RETENTION_RUN_MS };
}

/** Prunes a service's logs by their retention policies (Pruner). Requires DatabaseModule. */
@Module({})
export class RetentionModule {
  static forRoot(options: () => RetentionOptions): DynamicModule {
    return {
      module: RetentionModule,
      providers: [{ provide: RETENTION_OPTIONS, useFactory: options }, Pruner],
      exports: [Pruner],
    };
  }
}
