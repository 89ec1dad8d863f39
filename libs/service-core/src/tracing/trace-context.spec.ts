import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from '../config/load-config.js';
import { ServiceConfig } from '../config/service.config.js';
import {
  currentRequestId,
  currentTrace,
  currentTraceId,
  currentTraceparent,
  inSpan,
  injectTraceHeaders,
  runInTrace,
  saneRequestId,
  startSpan,
  tracingOn,
} from './trace-context.js';
import { startTracing, tracingSettings } from './tracing.js';

// Tracing is off in this file (nothing configures it): only what carrying the trace needs happens.
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const FRESH_TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/;

describe('the trace carried as traceparent (W3C Trace Context)', () => {
  it('continues a carried traceparent as it is: trace id, parent span and sampled flag', () => {
    runInTrace({ traceparent: TRACEPARENT }, () => {
      expect(currentTraceId()).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(currentTraceparent()).toBe(TRACEPARENT);
      expect(currentTrace()).toEqual({ traceparent: TRACEPARENT });
    });
    runInTrace({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' }, () =>
      expect(currentTraceparent()).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00'),
    );
  });

  it('starts a new trace, not sampled, for a missing or malformed traceparent', () => {
    const malformed = [
      undefined,
      '',
      'not a traceparent',
      '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01', // upper case
      '00-00000000000000000000000000000000-b7ad6b7169203331-01', // no trace id
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', // no parent span
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', // the forbidden version
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra', // version 00 has four fields
      '00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01', // short trace id
    ];
    const traceIds = new Set<string>();
    for (const traceparent of malformed) {
      runInTrace({ traceparent }, () => {
        expect({ traceparent, carried: currentTraceparent() }).toEqual({ traceparent, carried: expect.stringMatching(FRESH_TRACEPARENT) });
        traceIds.add(currentTraceId() ?? '');
      });
    }
    expect(traceIds.size).toBe(malformed.length);
    expect(traceIds.has('0af7651916cd43dd8448eb211c80319c')).toBe(false);
  });

  it('keeps the trace across awaits and timers, and has none outside', async () => {
    expect(currentTraceId()).toBeUndefined();
    expect(currentTrace()).toEqual({ traceparent: undefined });
    await runInTrace({ traceparent: TRACEPARENT, requestId: 'req-123' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(currentTrace()).toEqual({ traceparent: TRACEPARENT, requestId: 'req-123' });
      expect(currentRequestId()).toBe('req-123');
    });
    expect(currentTraceId()).toBeUndefined();
    expect(currentRequestId()).toBeUndefined();
  });

  it('carries a request id only when it is safe to log and forward', () => {
    expect(saneRequestId('order-42:retry.1_a')).toBe('order-42:retry.1_a');
    for (const unsafe of ['bad id\nwith newline', '', 'x'.repeat(129), '\u00ff\u00fe', ['a', 'b'], 42]) expect(saneRequestId(unsafe)).toBeUndefined();
    runInTrace({ traceparent: TRACEPARENT, requestId: 'line\nbreak' }, () => expect(currentRequestId()).toBeUndefined());
  });

  it('puts traceparent (and a caller’s tracestate) on outgoing HTTP headers, next to the ones there', () => {
    expect(runInTrace({ traceparent: TRACEPARENT }, () => injectTraceHeaders({ 'user-agent': 'x' }))).toEqual({ 'user-agent': 'x', traceparent: TRACEPARENT });
    const fromCaller = startSpan('', { from: { traceparent: TRACEPARENT, tracestate: 'vendor=abc' } }).context;
    expect(injectTraceHeaders({}, fromCaller)).toEqual({ traceparent: TRACEPARENT, tracestate: 'vendor=abc' });
    expect(injectTraceHeaders({})).toEqual({});
  });
});

describe('tracing off unless configured', () => {
  const config = (env: Record<string, string> = {}) => loadConfig(ServiceConfig, env);

  it('is off with no OTLP endpoint: no settings, nothing started, no spans', async () => {
    expect(tracingSettings('offers-api', config())).toBeUndefined();
    expect(tracingSettings('offers-api', config({ OTEL_SERVICE_NAME: 'named', TRACE_SAMPLE_RATIO: '0.5' }))).toBeUndefined();
    expect(startTracing('offers-api', config())).toBe(false);
    expect(tracingOn()).toBe(false);
    expect(startSpan('work', { from: { traceparent: TRACEPARENT } }).span).toBeUndefined();
    // A span asked for in the work in hand is no work at all: the function just runs, in the same trace.
    await runInTrace({ traceparent: TRACEPARENT }, () =>
      inSpan('work', {}, async (span) => {
        expect(span).toBeUndefined();
        expect(currentTraceparent()).toBe(TRACEPARENT);
      }),
    );
  });

  it('is on with an endpoint: spans to <endpoint>/v1/traces, named after the service unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(tracingSettings('offers-api', config({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/' }))).toEqual({
      serviceName: 'offers-api',
      url: 'http://otel-collector:4318/v1/traces',
      headers: {},
      sampleRatio: 1,
    });
    expect(
      tracingSettings(
        'offers-api',
        config({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://traces.example/otlp', OTEL_SERVICE_NAME: 'offers-eu', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cr%3Dt,tenant=7', TRACE_SAMPLE_RATIO: '0.25' }),
      ),
    ).toEqual({ serviceName: 'offers-eu', url: 'https://traces.example/otlp/v1/traces', headers: { 'x-api-key': 's3cr=t', tenant: '7' }, sampleRatio: 0.25 });
  });

  it('refuses settings that cannot work, naming them', () => {
    const problems = (env: Record<string, string>) => {
      try {
        config(env);
        return [];
      } catch (error) {
        return (error as ConfigValidationError).problems;
      }
    };
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' })).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT: fails an http(s) URL']);
    expect(problems({ TRACE_SAMPLE_RATIO: '1.5' })).toEqual(['TRACE_SAMPLE_RATIO: fails max']);
    expect(problems({ OTEL_SERVICE_NAME: 'offers api' })).toEqual(['OTEL_SERVICE_NAME: fails matches']);
  });
});
