import { type DynamicModule, Module } from '@nestjs/common';
import { OUTBOX_OPTIONS, type OutboxOptions, OutboxRelay } from './outbox-relay.js';

/** Runs the outbox relay for a service's schema. Requires DatabaseModule and NatsModule. */
@Module({})
export class OutboxModule {
  static forRoot(options: () => OutboxOptions): DynamicModule {
    return {
      module: OutboxModule,
      providers: [{ provide: OUTBOX_OPTIONS, useFactory: options }, OutboxRelay],
      exports: [OutboxRelay],
    };
  }
}
