import autocannon from 'autocannon';

export interface LoadOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  method: 'GET' | 'POST';
  /** One path, or several that every connection cycles through. */
  paths: readonly string[];
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; unset means as fast as the server answers. */
  overallRate?: number;
  signal?: AbortSignal;
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  overallRate: number | null;
  /** Mean of the per-second samples. */
  requestsPerSecond: number;
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
  /** Of 2xx responses only (autocannon's default), whole milliseconds. */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
}

/** Runs autocannon in this process, pipelining 1 (one request in flight per connection, like real clients). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const requests = options.paths.map((path) => ({ path }));
  let nextOffset = 0;
  const instance = autocannon({
    url: `${options.baseUrl}${options.paths[0]}`,
    method: options.method,
    headers: options.headers,
    body: options.body,
    requests,
    // Each connection starts at a different path, so concurrent requests spread over the rows.
    setupClient:
      requests.length > 1
        ? (client) => {
            const offset = nextOffset++ % requests.length;
            client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
          }
        : undefined,
    connections: options.connections,
    pipelining: 1,
    duration: options.durationSeconds,
    overallRate: options.overallRate,
    // autocannon "corrects" rate-limited latencies assuming a 1 ms interval (ceil(1/rate)), which
    // adds made-up samples; we report what was measured instead.
    ignoreCoordinatedOmission: options.overallRate !== undefined,
  });
  const stop = () => instance.stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const result = await instance;
    return {
      connections: options.connections,
      durationSeconds: result.duration,
      overallRate: options.overallRate ?? null,
      requestsPerSecond: round(result.requests.average),
      ok: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
      latencyMs: {
        mean: round(result.latency.average),
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
      },
    };
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
