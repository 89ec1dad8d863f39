import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import Fastify, { type FastifyInstance } from 'fastify';
import { traceRequests } from './http-tracing.js';
import { currentRequestId, currentTrace, currentTraceId, currentTraceparent, inSpan, runInTrace, tracingOn } from './trace-context.js';
import { installTracing, stopTracing } from './tracing.js';

// Tracing on in this process, spans kept in memory: the parent/child structure a service's spans form.
const exporter = new InMemorySpanExporter();
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

beforeAll(() => installTracing({ serviceName: 'spec-service', sampleRatio: 1 }, new SimpleSpanProcessor({ exporter })));
beforeEach(() => exporter.reset());
afterAll(() => stopTracing());

const byName = (name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
  if (!span) throw new Error(`no span ${name} among ${exporter.getFinishedSpans().map((s) => s.name).join(', ')}`);
  return span;
};

describe('spans at the platform’s boundaries (tracing on)', () => {
  it('makes a span a child of the carried traceparent, and carries its own on', async () => {
    let carried: { traceparent?: string; requestId?: string } = {};
    await inSpan('process offers.response.recorded', { kind: SpanKind.CONSUMER, from: { traceparent: TRACEPARENT, requestId: 'req-1' } }, async () => {
      carried = currentTrace();
      await inSpan('webhook attempt', {}, async () => undefined);
    });
    const consume = byName('process offers.response.recorded');
    const attempt = byName('webhook attempt');
    expect(consume.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(consume.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(consume.kind).toBe(SpanKind.CONSUMER);
    expect(consume.resource.attributes['service.name']).toBe('spec-service');
    expect(attempt.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(attempt.parentSpanContext?.spanId).toBe(consume.spanContext().spanId);
    expect(carried).toEqual({ traceparent: `00-0af7651916cd43dd8448eb211c80319c-${consume.spanContext().spanId}-01`, requestId: 'req-1' });
  });

  it('starts a new trace when none is carried, and marks a failure on the span', async () => {
    await expect(
      inSpan('process contacts.added', { from: {} }, async () => {
        throw new Error('the directory did not answer');
      }),
    ).rejects.toThrow('the directory did not answer');
    const span = byName('process contacts.added');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the directory did not answer' });
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('follows the caller’s decision not to sample: the trace goes on, no span is recorded', async () => {
    const unsampled = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    await inSpan('work', { from: { traceparent: unsampled } }, async () => {
      expect(currentTraceId()).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(currentTraceparent()).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$/);
    });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  describe('HTTP requests (traceRequests)', () => {
    let fastify: FastifyInstance;
    let url: string;
    const seen: Array<{ traceId?: string; requestId?: string }> = [];

    beforeAll(async () => {
      fastify = Fastify();
      traceRequests(fastify);
      fastify.addHook('onSend', async (request, reply) => void reply.header('x-request-id', request.id));
      fastify.post('/offer/:id', async (request) => {
        // After the body parser's callbacks and an await: still in the request's trace.
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.push({ traceId: currentTraceId(), requestId: currentRequestId() });
        return { body: request.body };
      });
      fastify.get('/broken', async () => {
        throw new Error('broken');
      });
      url = await fastify.listen({ port: 0, host: '127.0.0.1' });
    });

    afterAll(() => fastify.close());

    it('continues the caller’s traceparent in a server span named by route; the request id is the caller’s x-request-id', async () => {
      const response = await fetch(`${url}/offer/o-1?filter=secret`, {
        method: 'POST',
        headers: { traceparent: TRACEPARENT, 'x-request-id': 'caller-42', 'content-type': 'application/json' },
        body: JSON.stringify({ a: 1 }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe('caller-42');
      expect(seen.at(-1)).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', requestId: 'caller-42' });
      const span = byName('POST /offer/:id');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(span.attributes).toEqual({ 'http.request.method': 'POST', 'http.route': '/offer/:id', 'url.path': '/offer/o-1', 'http.response.status_code': 200 });
    });

    it('starts a trace for a request without one; its request id is the trace id; a 5xx is an error', async () => {
      const response = await fetch(`${url}/broken`);
      expect(response.status).toBe(500);
      const span = byName('GET /broken');
      expect(span.parentSpanContext).toBeUndefined();
      expect(response.headers.get('x-request-id')).toBe(span.spanContext().traceId);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    });
  });

  it('records nothing once stopped, and the trace is still carried', async () => {
    await stopTracing();
    expect(tracingOn()).toBe(false);
    await runInTrace({ traceparent: TRACEPARENT }, () => inSpan('after', {}, async () => expect(currentTraceparent()).toBe(TRACEPARENT)));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
