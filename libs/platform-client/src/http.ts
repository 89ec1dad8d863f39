/** A response read whole: status, headers, raw text and the parsed JSON when there is any. */
export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Gives up (an AbortError) when the whole answer has not arrived in this time. */
  timeoutMs?: number;
}

export async function request<T = unknown>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const signal = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, signal });
  const text = await response.text();
  let json: unknown = undefined;
  if (text && /json/.test(response.headers.get('content-type') ?? '')) json = JSON.parse(text);
  return { status: response.status, headers: response.headers, text, json: json as T };
}

export class HttpError extends Error {
  constructor(readonly result: HttpResult) {
    super(`HTTP ${result.status}: ${result.text.slice(0, 500)}`);
  }
}

export function expectStatus<T>(result: HttpResult<T>, status: number): HttpResult<T> {
  if (result.status !== status) throw new HttpError(result);
  return result;
}
