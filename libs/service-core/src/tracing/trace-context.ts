import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';

/**
 * The trace of the work in hand, W3C Trace Context: an HTTP request continues its caller's
 * `traceparent` or starts a trace, and the trace follows what the request causes — the outbox row,
 * the event's NATS headers, BullMQ job data, requests to other services and calls to integrators —
 * so one trace id (32 hex digits) names the whole of it. Every log line written inside it carries it
 * as `traceId`. The OpenTelemetry context holds it, tracing on or off; only with tracing on
 * (see tracing.ts) are spans recorded, and without it carrying `traceparent` is all that is done.
 */
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** The W3C header of the trace context, on HTTP requests and NATS messages. */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * A caller's own id for a request, echoed on the response and carried with the trace (NATS
 * messages, job data) so the caller's id finds the work too. Without one, the request's id is its trace id.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The trace as it crosses a boundary that is not HTTP: NATS headers, an outbox row, job data. */
export interface CarriedTrace {
  traceparent?: string;
  requestId?: string;
}

const REQUEST_ID = createContextKey('platform request id');
const HTTP_REQUEST = createContextKey('platform HTTP request');

/** The HTTP request in hand, as log lines name it. */
export interface HttpRequestLabel {
  id: string;
  method: string;
  url: string;
}
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const propagator = new W3CTraceContextPropagator();
const ids = new RandomIdGenerator();
/** Set while tracing is on (startTracing); without it no span is made. */
let tracer: Tracer | undefined;

/** The given request id if it is safe to log and forward, else undefined. */
export function saneRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value) ? value : undefined;
}

/** A fresh W3C trace id: 32 lower-case hex digits. */
export function newTraceId(): string {
  return ids.generateTraceId();
}

export function currentTraceId(): string | undefined {
  return trace.getSpanContext(context.active())?.traceId;
}

export function currentRequestId(): string | undefined {
  return context.active().getValue(REQUEST_ID) as string | undefined;
}

/** The `traceparent` of the work in hand (its span, or the span it continues), if any. */
export function currentTraceparent(): string | undefined {
  return traceparentOf(context.active());
}

/** Adds the trace headers of a context (`traceparent`, and `tracestate` if it has one) to outgoing HTTP headers. */
export function injectTraceHeaders(headers: Record<string, string>, of: Context = context.active()): Record<string, string> {
  propagator.inject(of, headers, defaultTextMapSetter);
  return headers;
}

/** What an outbox row, a NATS message or job data carries of the work in hand. */
export function currentTrace(): CarriedTrace {
  const active = context.active();
  const requestId = active.getValue(REQUEST_ID) as string | undefined;
  const traceparent = traceparentOf(active);
  return requestId === undefined ? { traceparent } : { traceparent, requestId };
}

/** The W3C `traceparent` of a context: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(of: Context): string | undefined {
  const carrier: { traceparent?: string } = {};
  propagator.inject(of, carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/**
 * The context a carried trace continues: the trace and parent span its `traceparent` names, or —
 * when it names none (absent, malformed) — a new trace. Headers of an HTTP request read the same way
 * (`traceparent` and `tracestate`). `forSpan`: a span is started in it next, and the SDK starts the
 * new trace itself (a made-up parent would show as a missing span).
 */
export function continuedContext(carried: CarriedTrace | Record<string, unknown> | undefined, forSpan = false): Context {
  let continued = carried ? propagator.extract(ROOT_CONTEXT, carried, defaultTextMapGetter) : ROOT_CONTEXT;
  if (!forSpan && continued === ROOT_CONTEXT) continued = trace.setSpanContext(ROOT_CONTEXT, { traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE });
  const requestId = saneRequestId((carried as CarriedTrace | undefined)?.requestId);
  return requestId === undefined ? continued : continued.setValue(REQUEST_ID, requestId);
}

/** The context an HTTP request's work runs in: its id (see REQUEST_ID_HEADER), method and URL. */
export function withHttpRequest(of: Context, request: HttpRequestLabel): Context {
  return of.setValue(REQUEST_ID, request.id).setValue(HTTP_REQUEST, request);
}

/** The HTTP request whose work is in hand, if any. */
export function currentHttpRequest(): HttpRequestLabel | undefined {
  return context.active().getValue(HTTP_REQUEST) as HttpRequestLabel | undefined;
}

/** Runs `fn` in the carried trace, without a span of its own. */
export function runInTrace<T>(carried: CarriedTrace | undefined, fn: () => T): T {
  return context.with(continuedContext(carried), fn);
}

/** Runs `fn` in the given context (e.g. one made by startSpan). */
export function runInContext<T>(of: Context, fn: () => T): T {
  return context.with(of, fn);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /**
   * Continue this carried trace (a message's headers, an outbox row, job data) rather than the work
   * in hand; without a `traceparent` it starts a new trace.
   */
  from?: CarriedTrace | Record<string, unknown>;
}

/**
 * Starts a span, as a child of `options.from` or of the work in hand; returns the context to run its
 * work in, and the span, which the caller ends. Tracing off: no span, and the context is that of
 * `from` (or the work in hand).
 */
export function startSpan(name: string, options: SpanOptions = {}): { context: Context; span?: Span } {
  const parent = options.from ? continuedContext(options.from, tracer !== undefined) : context.active();
  if (!tracer) return { context: parent };
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  return { context: trace.setSpan(parent, span), span };
}

/**
 * Runs `fn` in a span (see startSpan) that ends when its Promise settles; a failure marks the span
 * as an error. Tracing off, `fn` runs in the carried trace (`from`), or just runs.
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracer && !options.from) return fn(undefined);
  const { context: spanContext, span } = startSpan(name, options);
  if (!span) return context.with(spanContext, fn, undefined, undefined);
  try {
    return await context.with(spanContext, fn, undefined, span);
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span as failed, with the error as its exception event. */
export function failed(span: Span | undefined, error: unknown, message?: string): void {
  if (!span) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? (error instanceof Error ? error.message : String(error)) });
}

/** Whether spans are recorded (tracing configured); callers skip building attributes otherwise. */
export function tracingOn(): boolean {
  return tracer !== undefined;
}

/** Used by startTracing/stopTracing (and tests): the tracer spans come from, or none. */
export function useTracer(next: Tracer | undefined): void {
  tracer = next;
}
