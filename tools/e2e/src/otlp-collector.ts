import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** OTLP's span kinds, as their numbers travel in OTLP/JSON. */
export const OtlpSpanKind = { Internal: 1, Server: 2, Client: 3, Producer: 4, Consumer: 5 } as const;

/** One span as a service exported it, with the service's name from its resource. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Absent for the root of a trace. */
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpKeyValue[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

/**
 * A stand-in for an OpenTelemetry collector: OTLP/HTTP with JSON bodies (what the services' exporter
 * sends, gzipped) on `/v1/traces`, every span kept in memory, so a test sees the spans of services
 * running as separate processes without a collector or protobuf. It answers as a collector does:
 * 200 and an empty ExportTraceServiceResponse.
 */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  /** Requests that were not an OTLP/JSON trace export, with the reason: a test should see none. */
  readonly refused: string[] = [];
  private constructor(
    private readonly server: Server,
    /** The base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpCollector> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const collector = new OtlpCollector(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    server.on('request', (request, response) => {
      collector.receive(request).then(
        () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
        (error: Error) => {
          collector.refused.push(error.message);
          response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: error.message }));
        },
      );
    });
    return collector;
  }

  /** The spans of one trace, in the order they arrived. */
  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async receive(request: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/traces') throw new Error(`${request.method} ${request.url}: not a trace export`);
    if (!/^application\/json/.test(request.headers['content-type'] ?? '')) throw new Error(`content type ${request.headers['content-type']}: not OTLP/JSON`);
    let body = Buffer.concat(chunks);
    if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const exported = JSON.parse(body.toString('utf8')) as OtlpExport;
    for (const resourceSpans of exported.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            // OTLP/JSON writes a root's parent as '' (or leaves it out).
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            status: span.status ?? {},
          });
        }
      }
    }
  }
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: OtlpAnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
