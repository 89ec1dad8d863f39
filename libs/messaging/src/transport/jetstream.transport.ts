import type { OnModuleDestroy } from '@nestjs/common';
import { BaseRpcContext, type CustomTransportStrategy, type MessageHandler, type MsPattern, Server } from '@nestjs/microservices';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { lastValueFrom } from 'rxjs';
import type { EventSubject } from '@availability/contracts';
import { DurableConsumer } from '../consumer/durable-consumer.js';
import type { ParkedEvent } from '../consumer/parked-events.js';
import type { BusRole } from '../nats/bus-permissions.js';
import { isFirstPublication } from '../outbox/first-publication.js';
import type { RequestReply } from '../nats/request-reply.js';

/**
 * What an `@EventPattern` handler may learn about the event in hand: `@Ctx() context: JetStreamContext`.
 * Nest's `@EventPattern(subject)` types the parameters after the payload as `unknown`; declared as
 * `@EventPattern<EventSubject>(subject)`, which also takes only an EventSubject, it lets this one be typed.
 */
export class JetStreamContext extends BaseRpcContext<[subject: string, message: JsMsg]> {
  /** The event's subject without the deployment's prefix (an EventSubject). */
  getSubject(): string {
    return this.args[0];
  }

  getMessage(): JsMsg {
    return this.args[1];
  }

  /** 1 the first time; more when the event comes back (a failed attempt, a timeout, a crash). */
  getDeliveryCount(): number {
    return this.args[1].info.deliveryCount;
  }

  /**
   * True for the stream's first delivery of an event's first publication (the outbox relay's commit
   * path): no copy of it should have been handled before, so a handler may do its work without first
   * looking for work an earlier copy did, as long as it still copes with the rare repeat (a clustered
   * consumer that lost its record of a delivery in a leader change). False for a redelivery, an event
   * the relay's poll published (it may repeat one whose mark was lost), or one published any other way.
   */
  isFirstSight(): boolean {
    return this.getDeliveryCount() === 1 && isFirstPublication(this.args[1]);
  }
}

/** What a `@MessagePattern` handler may learn about the request in hand: `@Ctx() context: NatsRequestContext`. */
export class NatsRequestContext extends BaseRpcContext<[subject: string, message: Msg]> {
  /** The request's subject without the deployment's prefix (a DirectoryPattern). */
  getSubject(): string {
    return this.args[0];
  }

  getMessage(): Msg {
    return this.args[1];
  }
}

/** How a service's durable consumer runs (DurableConsumerOptions, less what its bus role says). */
export interface EventHandlingOptions {
  stream: string;
  /** Events handled at once by each instance. */
  concurrency: number;
  /** Subjects of the role read in batches, and how often (DurableConsumerOptions.readEveryMs). */
  readEveryMs?: Partial<Record<EventSubject, number>>;
  /** Redelivery delays after a failed attempt; the last one repeats. */
  backoffMs?: number[];
  /** How long a handler may take before JetStream assumes it died and redelivers. */
  ackWaitMs?: number;
  /** Keeps an event that can never be handled, with the reason (ParkedEventStore.park). */
  park: (event: ParkedEvent) => Promise<void>;
}

export interface JetStreamTransportOptions {
  /** The service: the queue group its instances answer requests in, and the name its start-up errors give. */
  service: string;
  /** What it consumes and answers (BUS_ROLES[service]): exactly the handlers it must declare. */
  role: Pick<BusRole, 'consumes' | 'answers'>;
  /** NATS_SUBJECT_PREFIX, put before every subject as it binds. */
  subjectPrefix: string;
  /** Required when the role consumes events. */
  events?: EventHandlingOptions;
}

/**
 * The platform's Nest transport: a service's `@EventPattern(EventSubject.…)` methods are fed by its
 * one durable JetStream consumer (each event checked against its schema first, parked when it can
 * never be handled, acked only once its handler's work is done, redelivered with back-off when it
 * fails), and its `@MessagePattern(DirectoryPattern.…)` methods answer NATS requests through
 * RequestReply. Subjects are declared without the deployment's prefix and bound with it. It starts
 * only when the handlers are exactly what the service's bus role says, one per subject.
 */
export class JetStreamTransport extends Server implements CustomTransportStrategy, OnModuleDestroy {
  /** A handler's failure comes back here, where it decides between redelivery and parking. */
  override readonly propagatesEventHandlerErrors = true;
  private consumer?: DurableConsumer;
  private readonly responders: Subscription[] = [];
  private stopped?: Promise<void>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly rpc: RequestReply,
    private readonly options: JetStreamTransportOptions,
  ) {
    super();
    if (options.role.consumes && !options.events) throw new Error(`${options.service} consumes events: its transport needs their stream, concurrency and parking`);
  }

  /** Nest would silently chain a second event handler of a subject, or replace a request handler. */
  override addHandler(pattern: MsPattern, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const subject = this.normalizePattern(pattern);
    if (this.messageHandlers.has(subject)) throw new Error(`${this.options.service}: two handlers for ${subject}; a subject has exactly one`);
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /** Stops taking events and requests, and waits for the events in hand; unacknowledged ones are redelivered later. */
  async close(): Promise<void> {
    this.stopped ??= this.stop();
    await this.stopped;
  }

  /** Before the rest of the service shuts down, so no handler runs on a closed queue, mailer or database (see BusHandlersModule). */
  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  on(): never {
    throw new Error('JetStreamTransport reports no events');
  }

  unwrap<T>(): T {
    throw new Error('JetStreamTransport has no server of its own to unwrap');
  }

  private async start(): Promise<void> {
    const { service, role, subjectPrefix, events } = this.options;
    const problems = this.handlerProblems();
    if (problems.length > 0) throw new Error(`${service} cannot start its bus handlers:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);

    for (const subject of role.answers) {
      const handler = this.handlerOf(subject);
      this.responders.push(this.rpc.serve(subject, service, (request, message) => this.run(handler, request, new NatsRequestContext([subject, message]))));
    }
    if (!role.consumes || !events) return;
    this.consumer = new DurableConsumer(
      this.js,
      this.jsm,
      {
        stream: events.stream,
        durableName: role.consumes.durableName,
        filterSubjects: role.consumes.subjects.map((subject) => `${subjectPrefix}${subject}`),
        concurrency: events.concurrency,
        readEveryMs: Object.fromEntries(Object.entries(events.readEveryMs ?? {}).map(([subject, ms]) => [`${subjectPrefix}${subject}`, ms])),
        backoffMs: events.backoffMs,
        ackWaitMs: events.ackWaitMs,
        checking: { subjectPrefix, park: events.park },
      },
      // Only the role's subjects arrive (they are the consumer's filters), and each has its handler.
      (fullSubject, payload, message) => {
        const subject = fullSubject.slice(subjectPrefix.length);
        return this.run(this.handlerOf(subject), payload, new JetStreamContext([subject, message])).then(() => undefined);
      },
    );
    await this.consumer.start();
  }

  private async stop(): Promise<void> {
    for (const responder of this.responders) responder.unsubscribe();
    await this.consumer?.stop();
  }

  /** Every subject of the role with its one handler of the right kind, and no handler for anything else. */
  private handlerProblems(): string[] {
    const { service, role } = this.options;
    const consumed: readonly string[] = role.consumes?.subjects ?? [];
    const answered: readonly string[] = role.answers;
    const problems: string[] = [];
    for (const [subject, handler] of this.messageHandlers) {
      if (handler.isEventHandler && !consumed.includes(subject)) problems.push(`@EventPattern(${subject}): ${service} does not consume ${subject}`);
      if (!handler.isEventHandler && !answered.includes(subject)) problems.push(`@MessagePattern(${subject}): ${service} does not answer ${subject}`);
    }
    for (const subject of consumed) {
      if (this.messageHandlers.get(subject)?.isEventHandler !== true) problems.push(`${subject}: ${service} consumes it, but no @EventPattern handles it`);
    }
    for (const subject of answered) {
      if (this.messageHandlers.get(subject)?.isEventHandler !== false) problems.push(`${subject}: ${service} answers it, but no @MessagePattern handles it`);
    }
    for (const subject of Object.keys(this.options.events?.readEveryMs ?? {})) {
      if (!consumed.includes(subject)) problems.push(`${subject}: ${service} would read it in batches, but does not consume it`);
    }
    return problems;
  }

  private handlerOf(subject: string): MessageHandler {
    const handler = this.messageHandlers.get(subject);
    if (!handler) throw new Error(`no handler for ${subject}`);
    return handler;
  }

  /** A handler's work is done when its Promise settles or its Observable completes; the answer is the last value. */
  private async run(handler: MessageHandler, payload: unknown, context: BaseRpcContext): Promise<unknown> {
    return lastValueFrom(this.transformToObservable(await handler(payload, context)), { defaultValue: undefined });
  }
}
