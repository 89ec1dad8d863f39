import { type DynamicModule, Module } from '@nestjs/common';
import type { JetStreamManager } from '@nats-io/jetstream';
import { JETSTREAM_MANAGER } from '../nats/nats.tokens.js';
import type { ServiceConfig } from '@availability/service-core';
import { ensureEventStream, EVENT_STREAM_READY, type EventStreamOptions, eventStreamOptions } from './event-stream.js';

/** Makes sure the event stream exists before the service starts publishing or consuming. */
@Module({})
export class EventStreamModule {
  /** The stream a service's configuration names (EVENTS_STREAM, NATS_SUBJECT_PREFIX, EVENTS_STREAM_REPLICAS). */
  static forService(config: ServiceConfig): DynamicModule {
    return EventStreamModule.forRoot(() => eventStreamOptions(config));
  }

  static forRoot(options: () => EventStreamOptions): DynamicModule {
    return {
      module: EventStreamModule,
      providers: [
        {
          provide: EVENT_STREAM_READY,
          inject: [JETSTREAM_MANAGER],
          useFactory: async (jsm: JetStreamManager) => {
            await ensureEventStream(jsm, options());
            return true;
          },
        },
      ],
      exports: [EVENT_STREAM_READY],
    };
  }
}
