import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { signRequest } from '@availability/webhook-signing';
import type { FuzzRequest } from './requests.js';

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

/** No HTTP answer at all: the connection was reset, or nothing came back in time. */
export interface FuzzNoResponse {
  error: string;
  ms: number;
}

export type FuzzOutcome = FuzzResponse | FuzzNoResponse;

export const REQUEST_TIMEOUT_MS = 10_000;
/** Enough for any answer seen so far (a 400 listing 100,000 field errors is ~10 MB); more is cut off. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The headers that sign a request to the example integrator, as the platform signs its webhooks. */
function signature(request: FuzzRequest, secret: string, body: Buffer): Record<string, string> {
  if (!request.sign) return {};
  const stale = request.sign === 'stale' ? new Date(Date.now() - 3_600_000) : undefined;
  try {
    return signRequest({
      secrets: [request.sign === 'wrong-secret' ? 'some-other-secret-0123456789' : secret],
      method: request.method,
      pathWithQuery: request.path,
      body,
      // `<eventId>:<organisationId>`, as the platform forms a webhook's id (the integrator refuses others).
      webhookId: `fuzz-${randomUUID()}:fuzz`,
      now: stale,
    });
  } catch {
    return {}; // a path the signer refuses cannot be signed by anyone; it goes unsigned
  }
}

/**
 * Sends one request on a connection of its own (a hostile request may leave a connection unusable),
 * with Node's own client: it writes headers and bodies as given, even a Content-Length that lies.
 */
export function send(baseUrl: string, request: FuzzRequest, integratorSecret: string): Promise<FuzzOutcome> {
  const url = new URL(baseUrl);
  const body = request.body ?? Buffer.alloc(0);
  const headers: Record<string, string | string[]> = { ...request.headers, ...signature(request, integratorSecret, body) };
  // Node frames a GET or DELETE body only when told its length; without it the body would arrive as a second, garbage request.
  const framed = Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
  if (body.length > 0 && !framed) headers['content-length'] = String(body.length);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: FuzzOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    let client;
    try {
      client = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent: false });
    } catch (error) {
      // Node refused to write it (e.g. a character no client may put in a header): a generator bug, not a finding.
      reject(new Error(`the fuzzer generated a request Node cannot send: ${(error as Error).message}`));
      return;
    }
    client.setTimeout(REQUEST_TIMEOUT_MS, () => {
      finish({ error: `no answer within ${REQUEST_TIMEOUT_MS} ms`, ms: performance.now() - started });
      client.destroy();
    });
    const chunks: Buffer[] = [];
    let answered: { status: number; headers: FuzzResponse['headers'] } | undefined;
    const answer = (): FuzzResponse | undefined =>
      answered && { ...answered, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started };
    // The server may answer (413, 401) before it has read the whole body and close; that answer counts.
    client.on('error', (error: NodeJS.ErrnoException) => finish(answer() ?? { error: `${error.code ?? 'error'}: ${error.message}`, ms: performance.now() - started }));
    client.on('response', (response) => {
      answered = { status: response.statusCode ?? 0, headers: response.headers };
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      });
      response.on('error', () => finish(answer() as FuzzResponse));
      response.on('end', () => finish(answer() as FuzzResponse));
    });
    if (body.length > 0) client.end(body);
    else client.end();
  });
}

export function isResponse(outcome: FuzzOutcome): outcome is FuzzResponse {
  return 'status' in outcome;
}
