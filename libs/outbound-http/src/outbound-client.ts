import { type LookupAddress, type LookupOptions, promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import { Agent, errors, util } from 'undici';
import { failed, injectTraceHeaders, startSpan, tracingOn } from '@availability/service-core';
import { type AddressPolicy, forbiddenKind, forbiddenReason } from './address-policy.js';

/**
 * Why a call did not get a whole HTTP response. Integrators are shown the kind and the message (the
 * company-profile check, the delivery log), so both come from a small fixed set (see classify): a
 * refused connection is not told from one the other side closed, or the platform would be a port
 * scanner of any host the address policy allows, and nothing of the system's own words (errno
 * names, OpenSSL's text with its source paths) is passed on. The error the call met is the `cause`.
 */
export type OutboundFailureKind = 'timeout' | 'unreachable' | 'dns' | 'tls' | 'invalid-answer' | 'forbidden-address' | 'invalid-url';

export class OutboundRequestError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundRequestError';
  }
}

/** The fixed words of the failures that carry nothing of the call's own. */
export const FAILURE_WORDS = {
  unreachable: 'could not connect, or the connection ended without a valid HTTP answer',
  dns: 'the host name does not resolve',
  'invalid-answer': 'the answer was cut off or its body was not valid HTTP',
} as const;

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, up to `maxResponseBytes`; longer bodies are cut (and `truncated` is true). */
  body: string;
  truncated: boolean;
  durationMs: number;
  /** The body's bytes as received (up to `maxResponseBytes`), when the call asked for `bytes` (binary bodies such as images); `body` is then empty. */
  bytes?: Buffer;
}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as is; a Buffer can be shared by many calls with the same body. */
  body?: string | Uint8Array;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** `bytes`: the body is kept as received (`bytes`), not decoded as UTF-8 text. */
  responseType?: 'text' | 'bytes';
}

/** Every address a host name resolves to (the system resolver by default; tests model names with it). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true });

export interface OutboundClientOptions {
  policy: AddressPolicy;
  /** Open connections kept per origin. */
  connectionsPerOrigin?: number;
  /** Resolves host names; `dns.lookup` with `all: true` unless given. */
  resolve?: Resolver;
  /**
   * PEM certificates of CAs trusted besides Node's bundled public ones (a private deployment's own
   * CA; see readCaFile). https certificates are always verified, against the URL's host name.
   */
  extraCaCertificates?: string;
}

/**
 * The `lookup` the sockets use: resolves the name once, refuses the call if ANY address is
 * forbidden (a name answering with a public and a private address is refused), and hands the
 * socket exactly the addresses it checked, so nothing re-resolves between check and connect (no
 * DNS-rebinding window). Answers in both shapes Node asks for: the array when `all: true` (what
 * connect asks for with autoSelectFamily, trying the addresses in turn), one address otherwise.
 */
export function guardedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          // The kind of address, not the address: what a name resolves to inside is none of the caller's business.
          const kind = forbiddenKind(address, policy);
          if (kind) return callback(new OutboundRequestError('forbidden-address', `an address of ${hostname} is ${kind}`) as NodeJS.ErrnoException, '', 0);
        }
        const usable = options.family === 4 || options.family === 6 ? addresses.filter(({ family }) => family === options.family) : addresses;
        if (usable.length === 0) {
          return callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), '', 0);
        }
        if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [...usable]);
        callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** A URL checked once: where to connect, what to put on the request line, and the literal-address verdict. */
interface Target {
  origin: string;
  path: string;
  hostname: string;
}

/**
 * The only way the platform calls services it does not run (integrators). Integrators are named by
 * host name (IP literals work too): the name is resolved when a connection opens and every address
 * is checked against the address policy (see guardedLookup: DNS rebinding cannot slip past); a
 * literal address is checked before the call. https certificates are verified against the host
 * name, by the public CAs and any extra CA of the deployment. It follows no redirects, times every
 * call out, reads at most a bounded part of the response, and keeps connections alive per origin
 * for throughput. Every failure is an OutboundRequestError whose kind and message say why in plain
 * words.
 *
 * Every call carries the trace of the work in hand (`traceparent`), so an integrator can log the
 * platform's trace id; with tracing on, the call is a client span of that trace.
 *
 * Calls go straight to undici's dispatcher with a small handler that collects the bounded body (no
 * response stream per call), and deadlines share one timer per timeout length (see DeadlineQueue):
 * a fan-out makes thousands of calls a second, so per-call objects and timers matter.
 */
export class OutboundClient {
  private readonly agent: Agent;
  /** Verdict of the address policy per literal host: the same few hosts are called again and again. */
  private readonly literalVerdicts = new Map<string, string | undefined>();
  /** Parsed URLs: the same few endpoints are called again and again. */
  private readonly targets = new Map<string, Target>();
  private readonly deadlines = new Map<number, DeadlineQueue>();

  constructor(private readonly options: OutboundClientOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      // undici resolves only when it opens a connection; kept-alive connections are reused as they are.
      connect: {
        lookup: guardedLookup(options.resolve ?? systemResolver, options.policy),
        // Given a `ca`, TLS trusts only it: the public CAs stay trusted next to the extra ones.
        ...(options.extraCaCertificates ? { ca: [...rootCertificates, options.extraCaCertificates] } : {}),
      },
    });
  }

  send(call: OutboundRequest): Promise<OutboundResponse> {
    let target: Target;
    try {
      target = this.target(call.url);
    } catch (error) {
      return Promise.reject(error);
    }
    // A literal IP skips DNS, so it is checked here.
    const reason = this.literalVerdict(target.hostname);
    if (reason) return Promise.reject(new OutboundRequestError('forbidden-address', reason));
    if (!tracingOn()) return this.dispatch(target, call, injectTraceHeaders({ ...call.headers }));

    const { context, span } = startSpan(call.method, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: call.method, [ATTR_SERVER_ADDRESS]: target.hostname, [ATTR_URL_FULL]: `${target.origin}${pathOf(target.path)}` },
    });
    return this.dispatch(target, call, injectTraceHeaders({ ...call.headers }, context)).then(
      (response) => {
        endCallSpan(span, response.status);
        return response;
      },
      (error: OutboundRequestError) => {
        span?.setAttribute(ATTR_ERROR_TYPE, error.kind ?? 'network');
        failed(span, error);
        span?.end();
        throw error;
      },
    );
  }

  private dispatch(target: Target, call: OutboundRequest, headers: Record<string, string>): Promise<OutboundResponse> {
    return new Promise<OutboundResponse>((resolve, reject) => {
      const handler = new BoundedResponseHandler(resolve, reject, call.maxResponseBytes ?? 4096, call.timeoutMs, call.responseType === 'bytes');
      // One deadline for the whole call (connect, headers and body), so no undici header/body timers too.
      this.deadlineQueue(call.timeoutMs).add(handler);
      this.agent.dispatch(
        { origin: target.origin, path: target.path, method: call.method, headers, body: call.body, headersTimeout: 0, bodyTimeout: 0 },
        handler,
      );
    });
  }

  private target(url: string): Target {
    const known = this.targets.get(url);
    if (known) return known;
    const parsed = parseUrl(url);
    const target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, hostname: parsed.hostname };
    if (this.targets.size >= 1_000) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  private deadlineQueue(timeoutMs: number): DeadlineQueue {
    let queue = this.deadlines.get(timeoutMs);
    if (!queue) {
      if (this.deadlines.size >= 100) this.deadlines.clear(); // pending calls keep their queue alive
      queue = new DeadlineQueue(timeoutMs);
      this.deadlines.set(timeoutMs, queue);
    }
    return queue;
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

/** The path without the query, which may carry what does not belong in a trace (a token in a URL). */
function pathOf(pathWithQuery: string): string {
  const query = pathWithQuery.indexOf('?');
  return query === -1 ? pathWithQuery : pathWithQuery.slice(0, query);
}

function endCallSpan(span: Span | undefined, status: number): void {
  if (!span) return;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute(ATTR_ERROR_TYPE, String(status));
  span.end();
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

/**
 * Deadlines of calls with the same timeout expire in the order the calls started, so a FIFO and one
 * timer (armed for the oldest pending call) serve them all. A finished call only drops its
 * reference; the queue is emptied, and its timer cleared, whenever nothing is pending.
 */
class DeadlineQueue {
  private entries: Array<BoundedResponseHandler | undefined> = [];
  private startedAt: number[] = [];
  private head = 0;
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  add(handler: BoundedResponseHandler): void {
    handler.queue = this;
    handler.slot = this.entries.length;
    this.entries.push(handler);
    this.startedAt.push(handler.started);
    this.pending += 1;
    this.timer ??= setTimeout(this.expire, this.timeoutMs);
  }

  /** The call finished: no deadline for it any more. */
  remove(handler: BoundedResponseHandler): void {
    if (this.entries[handler.slot] !== handler) return;
    this.entries[handler.slot] = undefined;
    this.pending -= 1;
    if (this.pending === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.entries = [];
      this.startedAt = [];
      this.head = 0;
    }
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    while (this.head < this.entries.length) {
      const handler = this.entries[this.head];
      if (handler !== undefined) {
        // Timers may fire a little early; anything due within a millisecond goes now.
        const due = this.startedAt[this.head] + this.timeoutMs - now;
        if (due > 1) {
          this.compact();
          this.timer = setTimeout(this.expire, Math.ceil(due));
          return;
        }
        this.entries[this.head] = undefined;
        this.pending -= 1;
        handler.expire();
      }
      this.head += 1;
    }
    this.entries = [];
    this.startedAt = [];
    this.head = 0;
  };

  /** Drops the finished prefix once it dominates the arrays. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.entries.length) return;
    this.entries = this.entries.slice(this.head);
    this.startedAt = this.startedAt.slice(this.head);
    this.entries.forEach((handler, slot) => {
      if (handler) handler.slot = slot;
    });
    this.head = 0;
  }
}

/** An OutboundResponse whose headers are parsed when first read: many callers only need the status and body. */
class Response implements OutboundResponse {
  readonly #rawHeaders: Buffer[];
  #headers: Record<string, string | string[] | undefined> | undefined;

  constructor(
    readonly status: number,
    rawHeaders: Buffer[],
    readonly body: string,
    readonly truncated: boolean,
    readonly durationMs: number,
    readonly bytes?: Buffer,
  ) {
    this.#rawHeaders = rawHeaders;
  }

  get headers(): Record<string, string | string[] | undefined> {
    return (this.#headers ??= util.parseHeaders(this.#rawHeaders) as Record<string, string | string[] | undefined>);
  }

  /** Serialises (and spreads via JSON) like the plain object it stands for. */
  toJSON(): OutboundResponse {
    const plain: OutboundResponse = { status: this.status, headers: this.headers, body: this.body, truncated: this.truncated, durationMs: this.durationMs };
    if (this.bytes !== undefined) plain.bytes = this.bytes;
    return plain;
  }
}

/** Collects one response (status, headers, at most `maxBytes` of body) from undici's dispatcher. */
class BoundedResponseHandler {
  readonly started = performance.now();
  queue: DeadlineQueue | undefined;
  slot = 0;
  private abort: ((reason?: Error) => void) | undefined;
  private settled = false;
  private aborted: Error | undefined;
  private status = 0;
  private rawHeaders: Buffer[] = [];
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly resolve: (response: OutboundResponse) => void,
    private readonly reject: (error: OutboundRequestError) => void,
    private readonly maxBytes: number,
    private readonly timeoutMs: number,
    private readonly binary = false,
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    if (this.aborted) return abort(this.aborted);
    this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: the real answer follows
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      // Enough read: answer with the bounded part and drop the rest of the response.
      this.finish(Buffer.concat(this.chunks, this.size).subarray(0, this.maxBytes), true);
      this.stop(new OutboundRequestError('invalid-answer', 'response larger than the limit; not read further'));
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.finish(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size), false);
  }

  onError(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.queue?.remove(this);
    this.reject(classify(error, this.timeoutMs, this.status !== 0));
  }

  /** The deadline passed (the queue has already dropped this call). */
  expire(): void {
    const error = new OutboundRequestError('timeout', `no response within ${this.timeoutMs} ms`);
    if (!this.settled) {
      this.settled = true;
      this.reject(error);
    }
    this.stop(error);
  }

  private stop(reason: Error): void {
    if (this.abort) this.abort(reason);
    else this.aborted = reason; // still waiting for a connection: aborted as soon as it gets one
  }

  private finish(body: Buffer, truncated: boolean): void {
    if (this.settled) return;
    this.settled = true;
    this.queue?.remove(this);
    const durationMs = performance.now() - this.started;
    if (this.binary) this.resolve(new Response(this.status, this.rawHeaders, '', truncated, durationMs, body));
    else this.resolve(new Response(this.status, this.rawHeaders, body.toString('utf8'), truncated, durationMs));
  }
}

/**
 * The error a call met as one of the fixed failures. Once a status line and headers have come
 * (`answered`), what goes wrong is the answer's (`invalid-answer`: cut off, a broken chunk). Before,
 * anything but a timeout, a name that does not resolve or a TLS server's certificate or handshake is
 * `unreachable`: refused, reset, closed, no route, bytes that are not an HTTP answer (an SSH banner,
 * a Redis error), a TLS handshake with something that does not speak TLS. These are one reason on
 * purpose: apart, they would tell an open port from a closed one.
 */
function classify(error: unknown, timeoutMs: number, answered: boolean): OutboundRequestError {
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
    name === 'AbortError' ||
    code === 'ETIMEDOUT'
  ) {
    return new OutboundRequestError('timeout', `no response within ${timeoutMs} ms`, { cause: error });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'ENODATA') return new OutboundRequestError('dns', FAILURE_WORDS.dns, { cause: error });
  const tls = tlsFailure(error as TlsError, code);
  if (tls) return tls;
  if (answered) return new OutboundRequestError('invalid-answer', FAILURE_WORDS['invalid-answer'], { cause: error });
  return new OutboundRequestError('unreachable', FAILURE_WORDS.unreachable, { cause: error });
}

/** What Node's TLS errors carry besides the message. */
type TlsError = Error & { host?: string };

/** Certificate checks that fail because nobody the platform trusts vouches for the certificate. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);
/** Node's and OpenSSL's codes of a certificate the platform did not accept (the rest of the verify codes). */
const CERTIFICATE = /^(CERT_|UNABLE_TO_|INVALID_CA$|INVALID_PURPOSE$|PATH_LENGTH_EXCEEDED$|HOSTNAME_MISMATCH$|ERR_TLS_CERT_)/;
/** A TLS server refused the handshake (an alert: no protocol version or cipher in common, a client certificate wanted). */
const HANDSHAKE = /^ERR_SSL_(SSLV3_ALERT|TLSV1_ALERT|TLSV13_ALERT)_|^ERR_SSL_(UNSUPPORTED_PROTOCOL|NO_PROTOCOLS_AVAILABLE|NO_SHARED_CIPHER)$/;

/** A TLS server's certificate or handshake problem, in fixed words an integrator's admin can act on; undefined for anything else. */
function tlsFailure(error: TlsError, code: string): OutboundRequestError | undefined {
  let words: string;
  if (code === 'CERT_HAS_EXPIRED') words = 'the certificate has expired';
  else if (code === 'CERT_NOT_YET_VALID') words = 'the certificate is not valid yet';
  else if (UNTRUSTED.has(code)) words = 'the certificate is signed by an authority the platform does not trust (neither a public CA nor a CA configured for the platform)';
  else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') words = `the certificate is not valid for ${error.host ?? 'this host name'}`;
  else if (CERTIFICATE.test(code)) words = 'the certificate was not accepted';
  else if (HANDSHAKE.test(code)) words = 'the TLS handshake failed (no protocol version or cipher in common, or a client certificate wanted)';
  else return undefined;
  return new OutboundRequestError('tls', words, { cause: error });
}
