import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JetStreamManager } from '@nats-io/jetstream';
import { observeGauges, type ServiceConfig } from '@availability/service-core';
import { JETSTREAM_MANAGER } from '../nats/nats.tokens.js';
import { ensureEventStream, EVENT_STREAM_READY, type EventStreamOptions, eventStreamOptions } from './event-stream.js';

const EVENT_STREAM_OPTIONS = Symbol('EVENT_STREAM_OPTIONS');

/** How full the stream is: at its byte limit it refuses new events, which then wait in the outboxes. */
@Injectable()
class EventStreamGauges implements OnApplicationBootstrap, OnModuleDestroy {
  private stopObserving?: () => void;

  constructor(
    @Inject(JETSTREAM_MANAGER) private readonly jsm: JetStreamManager,
    @Inject(EVENT_STREAM_OPTIONS) private readonly options: EventStreamOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.stopObserving = observeGauges(
      [
        { name: 'jetstream_stream_bytes', help: 'Bytes the event stream holds.', labelNames: [] },
        { name: 'jetstream_stream_max_bytes', help: 'Bytes the event stream holds at most (EVENTS_STREAM_MAX_BYTES); at it, new events are refused.', labelNames: [] },
      ],
      async (set) => {
        const info = await this.jsm.streams.info(this.options.name);
        set('jetstream_stream_bytes', {}, info.state.bytes);
        set('jetstream_stream_max_bytes', {}, info.config.max_bytes);
      },
    );
  }

  onModuleDestroy(): void {
    this.stopObserving?.();
  }
}

/** Makes sure the event stream exists before the service starts publishing or consuming. */
@Module({})
export class EventStreamModule {
  /** The stream a service's configuration names (EVENTS_STREAM, NATS_SUBJECT_PREFIX, EVENTS_STREAM_REPLICAS, EVENTS_STREAM_MAX_BYTES). */
  static forService(config: ServiceConfig): DynamicModule {
    return EventStreamModule.forRoot(() => eventStreamOptions(config));
  }

  static forRoot(options: () => EventStreamOptions): DynamicModule {
    return {
      module: EventStreamModule,
      providers: [
        { provide: EVENT_STREAM_OPTIONS, useFactory: options },
        {
          provide: EVENT_STREAM_READY,
          inject: [JETSTREAM_MANAGER, EVENT_STREAM_OPTIONS],
          useFactory: async (jsm: JetStreamManager, streamOptions: EventStreamOptions) => {
            await ensureEventStream(jsm, streamOptions);
            return true;
          },
        },
        EventStreamGauges,
      ],
      exports: [EVENT_STREAM_READY],
    };
  }
}
