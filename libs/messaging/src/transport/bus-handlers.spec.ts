import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, type INestApplication, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { of } from 'rxjs';
import { DirectoryPattern, EventSubject } from '@availability/contracts';
import { PoisonMessageError } from '../consumer/durable-consumer.js';
import type { RequestReply } from '../nats/request-reply.js';
import { startBusHandlers } from './bus-handlers.module.js';
import { JetStreamTransport, type JetStreamTransportOptions, NatsRequestContext } from './jetstream.transport.js';

/** Stands in for RequestReply: remembers what is served, so the handlers can be called without NATS. */
class ServedRequests {
  readonly handlers = new Map<string, { queue: string; handler: (request: unknown, message: Msg) => Promise<unknown> }>();
  unsubscribed = 0;

  serve(subject: string, queue: string, handler: (request: unknown, message: Msg) => Promise<unknown>): Subscription {
    this.handlers.set(subject, { queue, handler });
    return { unsubscribe: () => (this.unsubscribed += 1) } as unknown as Subscription;
  }
}

const CONSUMES = { durableName: 'test-service', subjects: [EventSubject.ContactAdded, EventSubject.InviteCreated] };
const ANSWERS = [DirectoryPattern.VerifyCredential];
const noop = async () => undefined;
const received: unknown[] = [];

let app: INestApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Starts the handlers of `controllers` on a transport with `role` and no infrastructure behind it. */
async function start(
  controllers: Array<Type<unknown>>,
  role: JetStreamTransportOptions['role'],
  rpc = new ServedRequests(),
  readEveryMs?: Partial<Record<EventSubject, number>>,
): Promise<void> {
  const transport = new JetStreamTransport({} as JetStreamClient, {} as JetStreamManager, rpc as unknown as RequestReply, {
    service: 'test-service',
    role,
    subjectPrefix: 'test.',
    events: role.consumes ? { stream: 'TEST', concurrency: 1, readEveryMs, park: noop } : undefined,
  });
  @Module({ controllers, providers: [{ provide: JetStreamTransport, useValue: transport }] })
  class TestModule {}
  app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false });
  await startBusHandlers(app);
}

@Controller()
class ContactEvents {
  @EventPattern<EventSubject>(EventSubject.ContactAdded)
  onContactAdded(@Payload() event: unknown) {
    received.push(event);
  }
}

@Controller()
class InviteEvents {
  @EventPattern<EventSubject>(EventSubject.InviteCreated)
  onInviteCreated(@Payload() event: unknown) {
    received.push(event);
  }
}

@Controller()
class CredentialRequests {
  @MessagePattern(DirectoryPattern.VerifyCredential)
  verify(@Payload() request: { tokenHash: string }, @Ctx() context: NatsRequestContext) {
    return of({ kind: 'none', tokenHash: request.tokenHash, subject: context.getSubject() });
  }
}

describe('JetStreamTransport start-up', () => {
  it('refuses a subject the service consumes with no handler, naming it', async () => {
    await expect(start([ContactEvents], { consumes: CONSUMES, answers: [] })).rejects.toThrow(
      'test-service cannot start its bus handlers:\n  - invites.created: test-service consumes it, but no @EventPattern handles it',
    );
  });

  it('refuses a subject the service answers with no handler', async () => {
    await expect(start([], { answers: ANSWERS })).rejects.toThrow('directory.credentials.verify: test-service answers it, but no @MessagePattern handles it');
  });

  it('refuses two handlers for one subject, naming it', async () => {
    @Controller()
    class MoreContactEvents {
      @EventPattern<EventSubject>(EventSubject.ContactAdded)
      alsoOnContactAdded(@Payload() event: unknown) {
        received.push(event);
      }
    }
    await expect(start([ContactEvents, InviteEvents, MoreContactEvents], { consumes: CONSUMES, answers: [] })).rejects.toThrow(
      'test-service: two handlers for contacts.added; a subject has exactly one',
    );
  });

  it('refuses a handler for a subject the service may not consume or answer', async () => {
    @Controller()
    class Overreaching {
      @EventPattern<EventSubject>(EventSubject.OfferCreated)
      onOfferCreated(@Payload() event: unknown) {
        received.push(event);
      }

      @MessagePattern(DirectoryPattern.ResolveWebhookTarget)
      resolve(@Payload() request: unknown) {
        return request;
      }
    }
    const failure = start([ContactEvents, InviteEvents, Overreaching], { consumes: CONSUMES, answers: [] });
    await expect(failure).rejects.toThrow('@EventPattern(offers.created): test-service does not consume offers.created');
    await expect(failure).rejects.toThrow('@MessagePattern(directory.webhook-target.resolve): test-service does not answer directory.webhook-target.resolve');
  });

  it('refuses to read in batches a subject the service does not consume', async () => {
    await expect(start([ContactEvents, InviteEvents], { consumes: CONSUMES, answers: [] }, undefined, { [EventSubject.OfferCreated]: 1_000 })).rejects.toThrow(
      'offers.created: test-service would read it in batches, but does not consume it',
    );
  });

  it('refuses a request handler for a subject it consumes as events', async () => {
    @Controller()
    class WrongKind {
      @MessagePattern(EventSubject.InviteCreated)
      onInviteCreated(@Payload() request: unknown) {
        return request;
      }
    }
    const failure = start([ContactEvents, WrongKind], { consumes: CONSUMES, answers: [] });
    await expect(failure).rejects.toThrow('@MessagePattern(invites.created): test-service does not answer invites.created');
    await expect(failure).rejects.toThrow('invites.created: test-service consumes it, but no @EventPattern handles it');
  });

  it('serves each answered subject in the service’s queue group, with the handler’s answer, and stops serving on close', async () => {
    const rpc = new ServedRequests();
    await start([CredentialRequests], { answers: ANSWERS }, rpc);
    const served = rpc.handlers.get(DirectoryPattern.VerifyCredential);
    expect(served?.queue).toBe('test-service');
    await expect(served?.handler({ tokenHash: 'abc' }, {} as Msg)).resolves.toEqual({ kind: 'none', tokenHash: 'abc', subject: 'directory.credentials.verify' });
    await app?.close();
    app = undefined;
    expect(rpc.unsubscribed).toBe(1);
  });

  it('hands a handler’s error to the transport as thrown, not as Nest’s generic one', async () => {
    @Controller()
    class FailingRequests {
      @MessagePattern(DirectoryPattern.VerifyCredential)
      verify(): never {
        throw new PoisonMessageError('never answerable');
      }
    }
    const rpc = new ServedRequests();
    await start([FailingRequests], { answers: ANSWERS }, rpc);
    const answer = rpc.handlers.get(DirectoryPattern.VerifyCredential)?.handler({}, {} as Msg);
    await expect(answer).rejects.toBeInstanceOf(PoisonMessageError);
    await expect(answer).rejects.toThrow('never answerable');
  });
});
