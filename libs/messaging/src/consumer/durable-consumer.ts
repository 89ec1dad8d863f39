import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { ClosedConnectionError, nanos } from '@nats-io/transport-node';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_CONSUMER_GROUP_NAME,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM_NAME,
  failed,
  inSpan,
  observeGauges,
  tracingOn,
} from '@availability/service-core';
import { eventProblem } from '@availability/contracts';
import { carriedTrace } from '../nats/trace-headers.js';
import type { ParkedEvent } from './parked-events.js';

/**
 * The platform's consumers check every event against its schema (libs/contracts event-schemas.ts)
 * before their handler sees it, and park what can never be handled instead of dropping it.
 */
export interface EventChecking {
  /** The deployment's subject prefix, taken off a subject before its schema is looked up. */
  subjectPrefix: string;
  /** Keeps an event set aside, with the reason (ParkedEventStore.park). */
  park: (event: ParkedEvent) => Promise<void>;
}

export interface DurableConsumerOptions {
  stream: string;
  /** Durable name: every instance of a service shares it, so each event is handled by one of them. */
  durableName: string;
  /**
   * Full subjects, prefix included. Each gets its own JetStream consumer (`<durableName>-<n>`):
   * NATS servers before 2.10 allow one filter subject per consumer.
   */
  filterSubjects: string[];
  /** Events handled at once by this instance. */
  concurrency: number;
  /**
   * Full subjects read in batches rather than as each event arrives: every so many milliseconds, the
   * events gathered meanwhile are pulled at once. For events nobody waits on (an e-mail digest's
   * answers), so a steady trickle costs one wake-up, one pull and one write of acks per batch
   * instead of per event; each event waits up to that long before it is handled.
   */
  readEveryMs?: Record<string, number>;
  /** Deliveries before JetStream gives up on an event (then it stays in the stream and is logged). */
  maxDeliver?: number;
  /** Redelivery delays after a handler failed (its nak's delay); the last one repeats. */
  backoffMs?: number[];
  /** How long a handler may take before JetStream assumes it died and redelivers. */
  ackWaitMs?: number;
  /** Without it, payloads reach the handler unchecked and events that cannot be handled are only terminated and logged. */
  checking?: EventChecking;
}

/** What a handler says about an event it can never handle: it is parked (or, without checking, terminated). */
export class PoisonMessageError extends Error {}

/**
 * PostgreSQL refused the values themselves (SQLSTATE class 22, data exception: a NUL or lone
 * surrogate it cannot store, text too long for its column, a value of the wrong form): the same event
 * fails the same way on every delivery, so it is parked rather than retried for hours. A database
 * that is down or busy fails with other classes, and those events are retried.
 */
export function isDataRefusal(error: unknown): boolean {
  const { code, driverError } = (error ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  const sqlState = code ?? driverError?.code;
  return typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState);
}

export type EventHandler = (subject: string, payload: unknown, message: JsMsg) => Promise<void>;

const DEFAULT_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

/**
 * How a pull waits for events. When the consumer leader's server dies, the pulls waiting there vanish
 * without a word: the client notices two missed heartbeats, then checks the consumer and pulls again,
 * retrying that check after up to a pull's expiry while a new leader is elected. With the client's
 * defaults (30 s expiry, heartbeats every 15 s) events stalled for 20–50 s; with these, a few seconds.
 * Costs an empty pull every 5 s per consumer when idle, and a heartbeat a second while a pull waits.
 */
const PULL = { expires: 5_000, idle_heartbeat: 1_000 };

/** Most events one read of a batched subject takes; a longer backlog is read again at once. */
export const READ_BATCH_LIMIT = 500;

/** One JetStream consumer per filter subject; the names stay stable as long as the subject list's order does. */
export function jetStreamConsumers(options: DurableConsumerOptions): Array<{ name: string; subject: string }> {
  return options.filterSubjects.map((subject, index) => ({
    name: options.filterSubjects.length === 1 ? options.durableName : `${options.durableName}-${index + 1}`,
    subject,
  }));
}

/**
 * No JetStream `backoff`: the server would take its first step as the ack wait, whatever `ack_wait`
 * says, and redeliver an event whose handler is still at work after that step (a webhook call of a
 * few seconds made twice). Failures get their delays from the naks instead (`retryLater`).
 */
export function consumerConfig(options: DurableConsumerOptions, name: string, subject: string): Partial<ConsumerConfig> {
  return {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subject,
    max_deliver: options.maxDeliver ?? 50,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    max_ack_pending: Math.max(1_000, options.concurrency * 4),
  };
}

export function redeliveryDelay(backoffMs: number[], attempt: number): number {
  return backoffMs[Math.min(Math.max(attempt, 1), backoffMs.length) - 1];
}

/** Creates a durable consumer, or updates its settings; safe from every instance at every start. */
export async function ensureDurableConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const existing = await jsm.consumers.info(stream, config.durable_name).catch(() => undefined);
  if (!existing) {
    try {
      await jsm.consumers.add(stream, config);
    } catch (error) {
      // Another instance created it first.
      if (!/already in use|already exists/i.test((error as Error).message)) throw error;
    }
    return;
  }
  const { durable_name: _name, deliver_policy: _policy, ack_policy: _ack, filter_subject: _subject, ...mutable } = config;
  // The client merges an update into the consumer's settings: a back-off set by an earlier version is
  // cleared by name (see consumerConfig).
  await jsm.consumers.update(stream, config.durable_name, { backoff: [], ...mutable });
}

/**
 * Runs a JetStream durable pull consumer: at most `concurrency` handlers at once, ack on success,
 * redelivery with back-off on failure, termination for payloads that can never be handled. Handlers
 * must be idempotent: an event may arrive more than once (redelivery after a crash or a timeout).
 */
export class DurableConsumer {
  private readonly logger: Logger;
  private readonly subscriptions: ConsumerMessages[] = [];
  private readonly loops: Array<Promise<void>> = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** Loops waiting for a handler to finish before they take the next event. */
  private readonly waitingForSlot: Array<() => void> = [];
  private stopObserving?: () => void;
  private readonly stopping = new AbortController();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: DurableConsumerOptions,
    private readonly handler: EventHandler,
  ) {
    this.logger = new Logger(`Consumer:${options.durableName}`);
  }

  async start(): Promise<void> {
    const consumers = jetStreamConsumers(this.options);
    this.stopObserving = observeGauges(
      [
        {
          name: 'jetstream_consumer_pending_messages',
          help: 'Events in the stream not yet handed to this durable consumer (the consumer lag).',
          labelNames: ['consumer'],
        },
        {
          name: 'jetstream_consumer_ack_pending_messages',
          help: 'Events handed to this durable consumer and not yet acknowledged (in hand or awaiting redelivery).',
          labelNames: ['consumer'],
        },
      ],
      async (set) => {
        for (const { name } of consumers) {
          const info = await this.jsm.consumers.info(this.options.stream, name);
          set('jetstream_consumer_pending_messages', { consumer: name }, info.num_pending);
          set('jetstream_consumer_ack_pending_messages', { consumer: name }, info.num_ack_pending);
        }
      },
    );
    for (const { name, subject } of consumers) {
      await ensureDurableConsumer(this.jsm, this.options.stream, consumerConfig(this.options, name, subject) as Partial<ConsumerConfig> & { durable_name: string });
      const consumer = await this.js.consumers.get(this.options.stream, name);
      const everyMs = this.options.readEveryMs?.[subject];
      if (everyMs !== undefined) {
        this.loops.push(this.readInBatches(consumer, subject, everyMs));
        continue;
      }
      const messages = await consumer.consume({ max_messages: Math.max(this.options.concurrency * 2, 10), ...PULL });
      this.subscriptions.push(messages);
      this.loops.push(this.run(messages));
    }
  }

  /** Stops taking events and waits for the ones in hand; unacknowledged ones are redelivered later. */
  async stop(): Promise<void> {
    this.stopObserving?.();
    this.stopping.abort();
    await Promise.all(this.subscriptions.map((messages) => messages.close().catch(() => undefined)));
    await Promise.all(this.loops);
    await Promise.all(this.inFlight);
  }

  /**
   * A batched subject's loop: wait, ask the consumer how many events are waiting (new ones, and
   * unacknowledged ones, which after the previous batch are only those due for redelivery or in
   * another instance's hands), pull that many at once and handle them; a full batch is followed at
   * once by the next read. A failed read (no consumer leader for a moment) is tried again next time.
   */
  private async readInBatches(consumer: Consumer, subject: string, everyMs: number): Promise<void> {
    const { signal } = this.stopping;
    let backlog = false;
    let failing = false;
    // Instances read at random points of the interval, so they seldom ask for the same events at once:
    // one that finds its share taken holds its pull open for up to a second, taking events singly.
    await sleep(Math.random() * everyMs, undefined, { signal }).catch(() => undefined);
    while (!signal.aborted) {
      if (!backlog) await sleep(everyMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      try {
        const { num_pending: pending, num_ack_pending: unacknowledged } = await consumer.info();
        if (failing) this.logger.log(`reading ${subject} again`);
        failing = false;
        const waiting = pending + unacknowledged;
        backlog = waiting > READ_BATCH_LIMIT;
        if (waiting === 0) continue;
        // Ends when that many have come, or after a second when another instance took some.
        const messages = await consumer.fetch({ max_messages: Math.min(waiting, READ_BATCH_LIMIT), expires: 1_000 });
        this.subscriptions.push(messages);
        await this.run(messages).finally(() => this.subscriptions.splice(this.subscriptions.indexOf(messages), 1));
        await Promise.all(this.inFlight);
      } catch (error) {
        // Closed for good (not reconnecting): nothing more will come, as a consume() ends then.
        if (error instanceof ClosedConnectionError) return;
        backlog = false;
        // Once per outage, not once a read.
        if (!failing) this.logger.warn(`could not read ${subject}: ${(error as Error).message}; trying again every ${everyMs} ms`);
        failing = true;
      }
    }
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      // A counter and a wake-up, not Promise.race over the handlers in flight: that would add a
      // reaction to every pending handler per event, piling up on handlers that wait long.
      while (this.inFlight.size >= this.options.concurrency) await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
      const task = this.handle(message).finally(() => {
        this.inFlight.delete(task);
        this.waitingForSlot.shift()?.();
      });
      this.inFlight.add(task);
    }
  }

  /**
   * Each event is handled in the trace of the work that published it (its `traceparent` header), in
   * a consumer span when tracing is on, so its logs, jobs and calls join that trace.
   */
  private handle(message: JsMsg): Promise<void> {
    const prefix = this.options.checking?.subjectPrefix ?? '';
    const subject = message.subject.startsWith(prefix) ? message.subject.slice(prefix.length) : message.subject;
    return inSpan(`process ${subject}`, { kind: SpanKind.CONSUMER, from: carriedTrace(message), attributes: tracingOn() ? this.spanAttributes(message) : undefined }, (span) =>
      this.handleInTrace(message, subject, span),
    );
  }

  private async handleInTrace(message: JsMsg, subject: string, span: Span | undefined): Promise<void> {
    let payload: unknown;
    try {
      payload = message.json();
    } catch {
      await this.setAside(message, 'not JSON', span);
      return;
    }
    if (this.options.checking) {
      const problem = eventProblem(subject, payload);
      if (problem) {
        await this.setAside(message, `does not match the schema of ${subject}: ${problem}`, span);
        return;
      }
    }
    try {
      await this.handler(message.subject, payload, message);
      message.ack();
    } catch (error) {
      failed(span, error);
      if (error instanceof PoisonMessageError) {
        await this.setAside(message, error.message, span);
        return;
      }
      if (isDataRefusal(error)) {
        await this.setAside(message, `the database refused its data: ${(error as Error).message}`, span);
        return;
      }
      this.retryLater(message, `failed: ${(error as Error).message}`);
    }
  }

  private spanAttributes(message: JsMsg) {
    return {
      [ATTR_MESSAGING_SYSTEM_NAME]: 'nats',
      [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
      [ATTR_MESSAGING_OPERATION_NAME]: 'process',
      [ATTR_MESSAGING_DESTINATION_NAME]: message.subject,
      [ATTR_MESSAGING_CONSUMER_GROUP_NAME]: this.options.durableName,
      [ATTR_MESSAGING_MESSAGE_ID]: message.headers?.get('Nats-Msg-Id') || undefined,
      'messaging.nats.message.delivery_count': message.info.deliveryCount,
    };
  }

  /** An event that can never be handled: parked with the reason, then terminated; if it cannot be parked now, retried. */
  private async setAside(message: JsMsg, reason: string, span?: Span): Promise<void> {
    span?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    const park = this.options.checking?.park;
    if (park) {
      try {
        await park({ subject: message.subject, streamSequence: message.seq, payload: message.data, reason });
      } catch (error) {
        this.retryLater(message, `could not be parked (${(error as Error).message}); its reason: ${reason}`);
        return;
      }
    }
    this.logger.error(`${park ? 'parked' : 'terminating'} event ${message.seq} on ${message.subject}: ${reason}`);
    message.term(); // no reason text: servers before 2.10 ignore a TERM that carries one
  }

  private retryLater(message: JsMsg, why: string): void {
    const attempt = message.info.deliveryCount;
    this.logger.warn(`event ${message.seq} on ${message.subject} ${why} (attempt ${attempt})`);
    // The consumer has no JetStream back-off (see consumerConfig): a nak carries its delay.
    message.nak(redeliveryDelay(this.options.backoffMs ?? DEFAULT_BACKOFF_MS, attempt));
  }
}
