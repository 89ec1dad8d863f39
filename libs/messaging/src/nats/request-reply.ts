import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Msg, NatsConnection, RequestOptions, Subscription } from '@nats-io/transport-node';
import { encodeFailure, encodeReply, type RequestReplyAnswer } from '@availability/contracts';
import { SpanKind } from '@opentelemetry/api';
import { ATTR_MESSAGING_DESTINATION_NAME, ATTR_MESSAGING_OPERATION_TYPE, ATTR_MESSAGING_SYSTEM_NAME, currentTrace, inSpan, tracingOn } from '@availability/service-core';
import { NATS_CONNECTION, NATS_SUBJECT_PREFIX } from './nats.tokens.js';
import { carriedTrace, traceHeaders } from './trace-headers.js';

export class RequestFailedError extends Error {}

/**
 * Request/reply between services over the process's one NATS connection, with JSON bodies and
 * subjects under the deployment's prefix (so environments and test runs sharing a cluster never
 * answer each other). Replies come from a queue group: any instance of the serving service answers.
 * The asker's trace travels in the request's headers; the answer is worked out in it (client and
 * server spans when tracing is on).
 */
@Injectable()
export class RequestReply implements OnModuleDestroy {
  private readonly logger = new Logger('RequestReply');
  private readonly subscriptions: Subscription[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(NATS_SUBJECT_PREFIX) private readonly prefix: string,
  ) {}

  /**
   * Answers `subject` with `handler`, load-balanced across the instances in `queue`. The caller ends
   * the subscription (a service's transport, when it stops taking requests).
   */
  serve<TRequest, TResult>(subject: string, queue: string, handler: (request: TRequest, message: Msg) => Promise<TResult>): Subscription {
    return this.connection.subscribe(`${this.prefix}${subject}`, {
      queue,
      callback: (error, message) => {
        if (error) return;
        void (async () => {
          let reply: string;
          try {
            reply = encodeReply(
              await inSpan(`process ${subject}`, { kind: SpanKind.SERVER, from: carriedTrace(message), attributes: tracingOn() ? spanAttributes(subject, 'process') : undefined }, () =>
                handler(message.json<TRequest>(), message),
              ),
            );
          } catch (failure) {
            this.logger.warn(`${subject} failed: ${(failure as Error).message}`);
            reply = encodeFailure('request failed');
          }
          message.respond(reply);
        })();
      },
    });
  }

  request<TRequest, TResult>(subject: string, request: TRequest, timeoutMs: number): Promise<TResult> {
    return inSpan(`request ${subject}`, { kind: SpanKind.CLIENT, attributes: tracingOn() ? spanAttributes(subject, 'send') : undefined }, async () => {
      const headers = traceHeaders(currentTrace());
      const options: RequestOptions = headers ? { timeout: timeoutMs, headers } : { timeout: timeoutMs };
      const message = await this.connection.request(`${this.prefix}${subject}`, JSON.stringify(request), options);
      const reply = message.json<RequestReplyAnswer<TResult>>();
      if (!reply.ok) throw new RequestFailedError(`${subject}: ${reply.error}`);
      return reply.result;
    });
  }

  /**
   * A broadcast to every instance (cache invalidation), out on the server before this resolves, so
   * the change that caused it is announced before its request is answered. Never throws: a service
   * that misses one drops its cached entry when the entry expires.
   */
  async broadcast(subject: string, body: unknown): Promise<void> {
    try {
      this.connection.publish(`${this.prefix}${subject}`, JSON.stringify(body));
      await this.connection.flush();
    } catch (error) {
      this.logger.warn(`broadcast on ${subject} failed (cached entries expire on their own): ${(error as Error).message}`);
    }
  }

  subscribe<T>(subject: string, handler: (body: T) => void): void {
    this.subscriptions.push(
      this.connection.subscribe(`${this.prefix}${subject}`, {
        callback: (error, message) => {
          if (error) return;
          try {
            handler(message.json<T>());
          } catch {
            this.logger.warn(`ignored a malformed message on ${subject}`);
          }
        },
      }),
    );
  }

  onModuleDestroy(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}

function spanAttributes(subject: string, operation: 'send' | 'process') {
  return { [ATTR_MESSAGING_SYSTEM_NAME]: 'nats', [ATTR_MESSAGING_OPERATION_TYPE]: operation, [ATTR_MESSAGING_DESTINATION_NAME]: subject };
}
