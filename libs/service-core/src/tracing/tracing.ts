import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { type DiagLogger, diag, DiagLogLevel, trace } from '@opentelemetry/api';
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, type SpanProcessor, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { ServiceConfig } from '../config/service.config.js';
import { useTracer } from './trace-context.js';

export type TracingConfig = Pick<ServiceConfig, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_HEADERS' | 'OTEL_SERVICE_NAME' | 'TRACE_SAMPLE_RATIO'>;

/** What a service records and where it sends it, when tracing is on. */
export interface TracingSettings {
  serviceName: string;
  /** OTLP/HTTP with JSON bodies: `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  url: string;
  headers: Record<string, string>;
  /** Share of new traces recorded; a continued trace follows its caller's decision. */
  sampleRatio: number;
}

/** The tracing a service's settings ask for; undefined when OTEL_EXPORTER_OTLP_ENDPOINT is empty: tracing off. */
export function tracingSettings(serviceName: string, config: TracingConfig): TracingSettings | undefined {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT.trim();
  if (endpoint === '') return undefined;
  return {
    serviceName: config.OTEL_SERVICE_NAME || serviceName,
    url: `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    headers: parseKeyPairsIntoRecord(config.OTEL_EXPORTER_OTLP_HEADERS),
    sampleRatio: config.TRACE_SAMPLE_RATIO,
  };
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

let provider: TracerProvider | undefined;

/**
 * Turns tracing on for this process when the settings ask for it: spans at the platform's own
 * boundaries (see trace-context.ts) are batched and sent to the collector, gzipped. Returns whether
 * it is on. Called once, by the service's main.ts, before the service starts.
 */
export function startTracing(serviceName: string, config: TracingConfig): boolean {
  const settings = tracingSettings(serviceName, config);
  if (!settings) return false;
  const exporter = new OTLPTraceExporter({
    url: settings.url,
    headers: settings.headers,
    compression: 'gzip' as ExporterConfig['compression'],
  });
  installTracing(settings, new BatchSpanProcessor({ exporter }));
  return true;
}

/** Records spans through `processor`: startTracing's exporter, or a test's in-memory one. */
export function installTracing(settings: Pick<TracingSettings, 'serviceName' | 'sampleRatio'>, processor: SpanProcessor): void {
  provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_INSTANCE_ID]: randomUUID() }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [processor],
  });
  trace.setGlobalTracerProvider(provider);
  diag.setLogger(throttledDiagLogger(new Logger('Tracing')), DiagLogLevel.WARN);
  useTracer(provider.getTracer('availability-platform'));
}

/** Sends what is still buffered and stops recording; a no-op when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  provider = undefined;
  useTracer(undefined);
  trace.disable();
  diag.disable();
  await stopping.shutdown();
}

/**
 * The SDK's own problems (a collector that cannot be reached, spans dropped) in the service's log,
 * one line a minute at most: an export fails every few seconds while the collector is away.
 */
function throttledDiagLogger(logger: Logger): DiagLogger {
  let quietUntil = 0;
  let suppressed = 0;
  const warn = (message: string) => {
    const now = Date.now();
    if (now < quietUntil) {
      suppressed += 1;
      return;
    }
    quietUntil = now + 60_000;
    logger.warn(suppressed > 0 ? `${message} (${suppressed} more problems in the last minute)` : message);
    suppressed = 0;
  };
  const ignore = () => undefined;
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}
