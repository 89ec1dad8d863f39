import { Catch, type DynamicModule, type INestApplication, Module, type RpcExceptionFilter } from '@nestjs/common';
import { NestMicroservice } from '@nestjs/microservices';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { type Observable, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import type { ServiceConfig } from '@availability/service-core';
import { ParkedEventStore } from '../consumer/parked-events.js';
import { EventStreamModule } from '../events/event-stream.module.js';
import { EVENT_STREAM_READY } from '../events/event-stream.js';
import { BUS_ROLES, type BusRole, type BusService } from '../nats/bus-permissions.js';
import { JETSTREAM, JETSTREAM_MANAGER } from '../nats/nats.tokens.js';
import { RequestReply } from '../nats/request-reply.js';
import { type EventHandlingOptions, JetStreamTransport } from './jetstream.transport.js';

/** How a consuming service handles its events; the rest comes from its bus role and its config. */
export interface EventHandling extends Omit<EventHandlingOptions, 'stream' | 'park'> {
  /** The service's schema: its `parked_event` table (parkedEventsMigration) keeps what can never be handled. */
  parkedEventsSchema: string;
}

/**
 * A service's bus handlers: the `@EventPattern` and `@MessagePattern` methods of its controllers, run
 * by a JetStreamTransport bound to what its bus role (BUS_ROLES) lets it consume and answer. Import it
 * in the service's module, and start the handlers with startBusHandlers.
 *
 * A module of its own and not global: Nest shuts non-global modules down before global ones (every
 * service's own module is global), so the transport stops taking events and waits for those in hand
 * before anything their handlers use (queues, the mailer, the database, NATS) closes.
 */
@Module({})
export class BusHandlersModule {
  static forService(service: BusService, config: ServiceConfig, events?: EventHandling): DynamicModule {
    const role: BusRole = BUS_ROLES[service];
    if (Boolean(role.consumes) !== Boolean(events)) {
      throw new Error(role.consumes ? `${service} consumes events: say how it handles them` : `${service} consumes no events (BUS_ROLES)`);
    }
    const transport = (js: JetStreamClient, jsm: JetStreamManager, rpc: RequestReply, dataSource?: DataSource) =>
      new JetStreamTransport(js, jsm, rpc, {
        service,
        role,
        subjectPrefix: config.NATS_SUBJECT_PREFIX,
        events: events && dataSource ? eventHandlingOptions(config.EVENTS_STREAM, events, dataSource) : undefined,
      });
    return {
      module: BusHandlersModule,
      // A consumer needs the stream, and its parked_event table (migrated as the DataSource is made).
      imports: events ? [EventStreamModule.forService(config)] : [],
      providers: [
        {
          provide: JetStreamTransport,
          inject: [JETSTREAM, JETSTREAM_MANAGER, RequestReply, ...(events ? [DataSource, EVENT_STREAM_READY] : [])],
          useFactory: transport,
        },
      ],
      exports: [JetStreamTransport],
    };
  }
}

function eventHandlingOptions(stream: string, { parkedEventsSchema, ...handling }: EventHandling, dataSource: DataSource): EventHandlingOptions {
  const parked = new ParkedEventStore(dataSource, parkedEventsSchema);
  return { ...handling, stream, park: (event) => parked.park(event) };
}

/**
 * Starts the handlers of the service's BusHandlersModule: after the application's own start-up
 * (`app.init()`: its lifecycle hooks) and before it listens for HTTP. Fails, naming the subject,
 * when a subject the service consumes or answers has no handler or two, or when a handler's subject
 * is not one the service may consume or answer.
 */
export async function startBusHandlers(app: INestApplication): Promise<void> {
  // Not the HTTP application's filter, guard and interceptor (problem+json, api-version, the request
  // id as trace id). Deferred, so the filter below is in place before Nest binds the handlers.
  const microservice = app.connectMicroservice({ strategy: app.get(JetStreamTransport) }, { deferInitialization: true });
  microservice.useGlobalFilters(new HandlerErrorsToTransport());
  // The application runs the lifecycle hooks of the container both share; the microservice must not run them again.
  if (!(microservice instanceof NestMicroservice)) throw new Error('expected a NestMicroservice');
  microservice.setIsInitHookCalled(true);
  await app.init();
  await app.startAllMicroservices();
}

/** Hands a handler's error to the transport as thrown (it retries the event, or parks it on PoisonMessageError); Nest's default filter would replace it. */
@Catch()
class HandlerErrorsToTransport implements RpcExceptionFilter {
  catch(error: unknown): Observable<never> {
    return throwError(() => error);
  }
}
