import { lookup } from 'node:dns';
import { Agent, errors, request } from 'undici';
import { type AddressPolicy, forbiddenReason } from './address-policy.js';

/** Why a call did not get an HTTP response; each is reported to users in plain words. */
export type OutboundFailureKind = 'timeout' | 'refused' | 'dns' | 'tls' | 'forbidden-address' | 'invalid-url' | 'network';

export class OutboundRequestError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRequestError';
  }
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, up to `maxResponseBytes`; longer bodies are cut (and `truncated` is true). */
  body: string;
  truncated: boolean;
  durationMs: number;
}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxResponseBytes?: number;
}

export interface OutboundClientOptions {
  policy: AddressPolicy;
  /** Open connections kept per origin. */
  connectionsPerOrigin?: number;
}

/**
 * The only way the platform calls services it does not run (integrators). It resolves the host,
 * refuses forbidden addresses at connect time (so DNS rebinding cannot slip past), follows no
 * redirects, times every call out, reads at most a bounded part of the response, and keeps
 * connections alive per origin for throughput.
 */
export class OutboundClient {
  private readonly agent: Agent;
  /** Verdict of the address policy per literal host: the same few hosts are called again and again. */
  private readonly literalVerdicts = new Map<string, string | undefined>();

  constructor(private readonly options: OutboundClientOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      connect: {
        lookup: (hostname, lookupOptions, callback) => {
          lookup(hostname, { ...lookupOptions, all: false }, (error, address, family) => {
            if (error) return callback(error, address, family);
            const reason = forbiddenReason(address as string, options.policy);
            if (reason) return callback(new OutboundRequestError('forbidden-address', reason) as NodeJS.ErrnoException, '', 0);
            callback(null, address, family);
          });
        },
      },
    });
  }

  async send(call: OutboundRequest): Promise<OutboundResponse> {
    const url = parseUrl(call.url);
    // A literal IP skips DNS, so it is checked here.
    const reason = this.literalVerdict(url.hostname);
    if (reason) throw new OutboundRequestError('forbidden-address', reason);

    const started = performance.now();
    const maxBytes = call.maxResponseBytes ?? 4096;
    // One deadline for the whole call. Not AbortSignal.timeout(): its timer fires (and builds an
    // error) even after the call has finished; this one is cleared.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), call.timeoutMs);
    try {
      const response = await request(url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        dispatcher: this.agent,
        headersTimeout: call.timeoutMs,
        bodyTimeout: call.timeoutMs,
        signal: deadline.signal,
        maxRedirections: 0,
      } as Parameters<typeof request>[1]);
      const { body, truncated } = await readBounded(response.body, maxBytes);
      return { status: response.statusCode, headers: response.headers, body, truncated, durationMs: performance.now() - started };
    } catch (error) {
      throw classify(error, call.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  private literalVerdict(hostname: string): string | undefined {
    if (this.literalVerdicts.has(hostname)) return this.literalVerdicts.get(hostname);
    const reason = forbiddenReason(hostname.replace(/^\[|\]$/g, ''), this.options.policy);
    const verdict = reason === 'not an IP address' ? undefined : reason;
    if (this.literalVerdicts.size >= 10_000) this.literalVerdicts.clear();
    this.literalVerdicts.set(hostname, verdict);
    return verdict;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestError('invalid-url', 'not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRequestError('invalid-url', 'only http and https URLs are allowed');
  if (url.username || url.password) throw new OutboundRequestError('invalid-url', 'URLs with credentials are not allowed');
  return url;
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<{ body: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return { body: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), truncated: true };
    }
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

function classify(error: unknown, timeoutMs: number): OutboundRequestError {
  if (error instanceof OutboundRequestError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundRequestError) return cause;
  const code = (error as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code ?? '';
  const name = (error as Error).name;
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    name === 'TimeoutError' ||
    name === 'AbortError'
  ) {
    return new OutboundRequestError('timeout', `no response within ${timeoutMs} ms`);
  }
  if (code === 'ECONNREFUSED') return new OutboundRequestError('refused', 'connection refused');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new OutboundRequestError('dns', 'the host name does not resolve');
  if (/CERT|SSL|TLS|ERR_TLS/i.test(code) || /certificate|ssl|tls/i.test((error as Error).message)) {
    return new OutboundRequestError('tls', `TLS failed: ${(error as Error).message}`);
  }
  return new OutboundRequestError('network', (error as Error).message || code || 'network error');
}
