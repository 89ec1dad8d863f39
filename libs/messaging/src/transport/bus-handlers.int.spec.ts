import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, type DynamicModule, type INestApplication, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { map, type Observable, timer } from 'rxjs';
import {
  type ContactAddedEvent,
  type CredentialVerdict,
  DirectoryPattern,
  EventSubject,
  type OfferResponseRecordedEvent,
  type RequestReplyAnswer,
  type VerifyCredentialRequest,
} from '@availability/contracts';
import { ApiVersionGuard, BodyValidationPipe, currentRequestId, currentTraceId, DatabaseModule, loadConfig, ProblemExceptionFilter, ServiceConfig } from '@availability/service-core';
import { createTestDatabase, createTestEventNamespace, eventually, queryDatabase, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { PoisonMessageError } from '../consumer/durable-consumer.js';
import { parkedEventsMigration } from '../consumer/parked-events.js';
import { NatsModule } from '../nats/nats.module.js';
import { BusHandlersModule, startBusHandlers } from './bus-handlers.module.js';
import { JetStreamContext, NatsRequestContext } from './jetstream.transport.js';

const SCHEMA = 'handlers';
const POISON = randomUUID();
const FLAKY = randomUUID();
const SLOW = randomUUID();

let namespace: TestEventNamespace;
let database: TestDatabase;
let observer: NatsConnection;
let jsm: JetStreamManager;

interface Handled {
  subject: string;
  id: string;
  deliveryCount: number;
  traceId?: string;
  requestId?: string;
}
const handled: Handled[] = [];
/** What happened while the service shut down, in order. */
const shutdown: string[] = [];
let slowEventStarted = false;

/** Stands for what a service's handlers use (a queue, the mailer): it closes when the service's own providers do. */
@Injectable()
class ServiceResource implements OnModuleDestroy {
  onModuleDestroy(): void {
    shutdown.push('the service’s resource closed');
  }
}

/** Handlers as the webhook dispatcher declares them: the subjects its bus role consumes. */
@Controller()
class WebhookEvents {
  @EventPattern<EventSubject>(EventSubject.ContactAdded)
  async onContactAdded(@Payload() event: ContactAddedEvent, @Ctx() context: JetStreamContext): Promise<void> {
    if (event.contactId === POISON) throw new PoisonMessageError('the organisation no longer exists');
    if (event.contactId === FLAKY && context.getDeliveryCount() === 1) throw new Error('the directory did not answer');
    if (event.contactId === SLOW) {
      slowEventStarted = true;
      await new Promise((resolve) => setTimeout(resolve, 300));
      shutdown.push('the event in hand handled');
      return;
    }
    handled.push({ subject: context.getSubject(), id: event.contactId, deliveryCount: context.getDeliveryCount(), traceId: currentTraceId(), requestId: currentRequestId() });
  }

  /** Its work is done when the Observable completes; only then is the event acked. */
  @EventPattern<EventSubject>(EventSubject.OfferResponseRecorded)
  onOfferResponse(@Payload() event: OfferResponseRecordedEvent, @Ctx() context: JetStreamContext): Observable<void> {
    return timer(50).pipe(map(() => void handled.push({ subject: context.getSubject(), id: event.offerId, deliveryCount: context.getDeliveryCount() })));
  }
}

/** Handlers as contact-directory declares them: the requests its bus role answers, and the events it consumes. */
@Controller()
class DirectoryRequests {
  @EventPattern<EventSubject>(EventSubject.SignInRequested)
  signInRequested(): void {
    // Declared because the role consumes it; no test here sends one.
  }

  @MessagePattern(DirectoryPattern.VerifyCredential)
  verify(@Payload() request: VerifyCredentialRequest, @Ctx() context: NatsRequestContext): CredentialVerdict & { subject: string; traceId?: string; requestId?: string } {
    return { kind: 'worker', workerId: request.tokenHash, subject: context.getSubject(), traceId: currentTraceId(), requestId: currentRequestId() };
  }

  @MessagePattern(DirectoryPattern.ResolveOfferAudience)
  audience(): Observable<{ userKnown: boolean }> {
    return timer(10).pipe(map(() => ({ userKnown: true })));
  }

  @MessagePattern(DirectoryPattern.ResolveWebhookTarget)
  target(): never {
    throw new Error('webhook target sealing is not configured');
  }

  @MessagePattern(DirectoryPattern.ResolveOrganisationContacts)
  async contacts(): Promise<{ name: string }> {
    return { name: 'Acme' };
  }
}

/** A service started the way its main.ts starts it: its own NATS credentials, its HTTP application, then its bus handlers. */
async function startService(service: 'webhook-dispatcher' | 'contact-directory', controller: new () => unknown): Promise<INestApplication> {
  const config = loadConfig(ServiceConfig, namespace.env);
  const nats = NatsModule.forRoot(() => ({
    servers: namespace.env.NATS_URL,
    name: service,
    subjectPrefix: config.NATS_SUBJECT_PREFIX,
    nkeySeed: namespace.credentials.services[service].seed,
  }));
  // Both consume events (contact-directory its sign-in requests), so both park what cannot be handled.
  const imports: DynamicModule[] = [
    DatabaseModule.forRoot(() => ({ url: database.url, schema: SCHEMA, migrations: [parkedEventsMigration(SCHEMA, 1764600000000)], poolSize: 2, applicationName: service })),
    nats,
    BusHandlersModule.forService(service, config, { concurrency: 4, backoffMs: [100], parkedEventsSchema: SCHEMA }),
  ];
  @Module({})
  class ServiceModule {
    static forRoot(): DynamicModule {
      return { module: ServiceModule, global: true, imports, controllers: [controller], providers: [ServiceResource] };
    }
  }
  const app = await NestFactory.create(ServiceModule.forRoot(), new FastifyAdapter(), { logger: false });
  // The HTTP application's own globals (as createHttpService sets them), which must leave bus handlers alone.
  app.useGlobalFilters(new ProblemExceptionFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalGuards(new ApiVersionGuard());
  await startBusHandlers(app);
  return app;
}

beforeAll(async () => {
  namespace = await createTestEventNamespace();
  database = await createTestDatabase();
  observer = await namespace.connect();
  jsm = await jetstreamManager(observer);
});

afterAll(async () => {
  await observer?.close();
  await namespace?.dispose();
  await database?.drop();
});

describe('a service’s @EventPattern handlers (real JetStream and PostgreSQL)', () => {
  let app: INestApplication | undefined;

  beforeAll(async () => {
    app = await startService('webhook-dispatcher', WebhookEvents);
  });

  afterAll(async () => {
    await app?.close();
  });

  const envelope = () => ({ eventId: randomUUID(), occurredAt: new Date().toISOString(), organisationId: randomUUID() });
  const contact = (contactId = randomUUID()) => ({ ...envelope(), contactId, workerId: randomUUID() });

  it('get each checked event with its context, after a failure again, and park what does not match or can never be handled', async () => {
    const js = jetstream(observer);
    const answer = { ...envelope(), offerId: randomUUID(), workerId: 'w-1', response: 'applied', previousResponse: 'awaiting', respondedAt: new Date().toISOString() };
    const traced = headers();
    traced.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    traced.set('x-request-id', 'request-of-the-caller');
    const valid = contact();
    await js.publish(`${namespace.prefix}${EventSubject.ContactAdded}`, JSON.stringify(valid), { headers: traced });
    await js.publish(`${namespace.prefix}${EventSubject.ContactAdded}`, JSON.stringify({ ...contact(), workerId: 42 }));
    await js.publish(`${namespace.prefix}${EventSubject.ContactAdded}`, JSON.stringify(contact(POISON)));
    await js.publish(`${namespace.prefix}${EventSubject.ContactAdded}`, JSON.stringify(contact(FLAKY)));
    await js.publish(`${namespace.prefix}${EventSubject.OfferResponseRecorded}`, JSON.stringify(answer));
    // Not the service's subject (nor its prefix): never reaches it.
    await js.publish(`${namespace.prefix}${EventSubject.InviteCreated}`, JSON.stringify({}));

    await eventually(() => handled.length === 3, 10_000, 'the valid events handled');
    expect(handled).toEqual(
      expect.arrayContaining([
        { subject: 'contacts.added', id: valid.contactId, deliveryCount: 1, traceId: '0af7651916cd43dd8448eb211c80319c', requestId: 'request-of-the-caller' },
        // No trace came with it: it is handled in a new one.
        { subject: 'contacts.added', id: FLAKY, deliveryCount: 2, traceId: expect.stringMatching(/^[0-9a-f]{32}$/), requestId: undefined },
        { subject: 'offers.response.recorded', id: answer.offerId, deliveryCount: 1 },
      ]),
    );
    await eventually(async () => (await queryDatabase(database.url, `SELECT 1 FROM ${SCHEMA}.parked_event`)).length === 2, 10_000, 'two events parked');
    const parked = await queryDatabase<{ subject: string; reason: string }>(database.url, `SELECT subject, reason FROM ${SCHEMA}.parked_event ORDER BY stream_sequence`);
    expect(parked).toEqual([
      { subject: `${namespace.prefix}contacts.added`, reason: expect.stringMatching(/^does not match the schema of contacts\.added: \/workerId: /) },
      { subject: `${namespace.prefix}contacts.added`, reason: 'the organisation no longer exists' },
    ]);
    // Every event acked or terminated, on the consumers named by the role's subject order.
    for (const name of ['webhook-dispatcher-1', 'webhook-dispatcher-2']) {
      await eventually(async () => (await jsm.consumers.info(namespace.stream, name)).num_ack_pending === 0, 5_000, `${name}: nothing left unacknowledged`);
      expect((await jsm.consumers.info(namespace.stream, name)).num_pending).toBe(0);
    }
    expect((await jsm.consumers.info(namespace.stream, 'webhook-dispatcher-1')).config.filter_subject).toBe(`${namespace.prefix}offers.response.recorded`);
  });

  it('at shutdown, stop taking events and finish the one in hand before the service’s own providers close', async () => {
    await jetstream(observer).publish(`${namespace.prefix}${EventSubject.ContactAdded}`, JSON.stringify(contact(SLOW)));
    await eventually(() => slowEventStarted, 5_000, 'the slow event in hand');
    await app?.close();
    app = undefined;
    expect(shutdown).toEqual(['the event in hand handled', 'the service’s resource closed']);
    await eventually(async () => (await jsm.consumers.info(namespace.stream, 'webhook-dispatcher-2')).num_ack_pending === 0, 5_000, 'the event in hand acked');
  });
});

describe('a service’s @MessagePattern handlers (real NATS)', () => {
  let app: INestApplication;
  let asker: NatsConnection;

  beforeAll(async () => {
    app = await startService('contact-directory', DirectoryRequests);
    asker = await namespace.connect('offers-api');
  });

  afterAll(async () => {
    await asker?.close();
    await app?.close();
  });

  const ask = async <T>(connection: NatsConnection, subject: string, body: unknown, traceparent?: string) => {
    const carried = headers();
    if (traceparent) carried.set('traceparent', traceparent);
    const reply = await connection.request(subject, JSON.stringify(body), { timeout: 2_000, headers: carried });
    return reply.json<RequestReplyAnswer<T>>();
  };

  it('answer requests on the prefixed subject, in the asker’s trace, whether the handler returns a value, a Promise or an Observable', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await expect(ask(asker, `${namespace.prefix}${DirectoryPattern.VerifyCredential}`, { tokenHash: 'ab12' }, traceparent)).resolves.toEqual({
      ok: true,
      result: { kind: 'worker', workerId: 'ab12', subject: 'directory.credentials.verify', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
    });
    await expect(ask(asker, `${namespace.prefix}${DirectoryPattern.ResolveOfferAudience}`, {})).resolves.toEqual({ ok: true, result: { userKnown: true } });
    await expect(ask(observer, `${namespace.prefix}${DirectoryPattern.ResolveOrganisationContacts}`, {})).resolves.toEqual({ ok: true, result: { name: 'Acme' } });
  });

  it('answer a failed handler with a failure that says no more', async () => {
    await expect(ask(observer, `${namespace.prefix}${DirectoryPattern.ResolveWebhookTarget}`, {})).resolves.toEqual({ ok: false, error: 'request failed' });
  });

  it('do not answer the subject without the deployment’s prefix', async () => {
    await expect(ask(observer, DirectoryPattern.VerifyCredential, { tokenHash: 'ab12' })).rejects.toThrow(/no responders/i);
  });
});
