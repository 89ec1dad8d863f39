import { describe, expect, it } from '@jest/globals';
import { createSenderClient, OffersApiError, retryAfterSeconds, type NewOffer, type SenderClientOptions } from './index.js';

/** What the client sends and how it reads answers, against a stand-in fetch; the real API is in test/. */
const offer: NewOffer = {
  createdByUserId: 'user-1',
  title: 'Warehouse pickers',
  workerIds: ['w1', 'w2'],
  events: [{ start: '2030-01-01T08:00:00Z', end: '2030-01-01T16:00:00Z' }],
};

const problem = (status: number, name: string, extra: Record<string, unknown> = {}) => ({
  type: `https://availability.example/problems/${name}`,
  title: name,
  status,
  detail: `${name} happened`,
  ...extra,
});

function answering(...responses: Array<() => Response>) {
  const requests: Array<{ method: string; url: URL; headers: Headers; body: string }> = [];
  const fetch = async (request: Request) => {
    requests.push({ method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text() });
    const next = responses[Math.min(requests.length, responses.length) - 1];
    return next();
  };
  return { requests, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json', ...headers } });

function client(fetch: SenderClientOptions['fetch'], options: Partial<SenderClientOptions> = {}) {
  return createSenderClient({ baseUrl: 'https://offers.example/', apiKey: 'apk_test', fetch, ...options });
}

describe('createSenderClient', () => {
  it('creates an offer: JSON body, the API key as Bearer, api-version=1.0, the Idempotency-Key, the id read from text/plain', async () => {
    const { requests, fetch } = answering(() => new Response('0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b', { status: 201, headers: { 'content-type': 'text/plain' } }));

    const created = await client(fetch).createOffer(offer, { idempotencyKey: 'order-42' });

    expect(created).toEqual({ id: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b', replayed: false });
    const [request] = requests;
    expect([request.method, request.url.origin + request.url.pathname]).toEqual(['POST', 'https://offers.example/offer']);
    expect(request.url.searchParams.getAll('api-version')).toEqual(['1.0']);
    expect(request.headers.get('authorization')).toBe('Bearer apk_test');
    expect(request.headers.get('idempotency-key')).toBe('order-42');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual(offer);
  });

  it('reports a replayed creation, and sends no Idempotency-Key unless given one', async () => {
    const replay = answering(() => new Response('id-1', { status: 201, headers: { 'idempotent-replayed': 'true' } }));
    expect(await client(replay.fetch).createOffer(offer, { idempotencyKey: 'k' })).toEqual({ id: 'id-1', replayed: true });
    const plain = answering(() => new Response('id-2', { status: 201 }));
    await client(plain.fetch).createOffer(offer);
    expect(plain.requests[0].headers.has('idempotency-key')).toBe(false);
  });

  it('reads, completes and withdraws with the spec’s paths and verbs, the id encoded, api-version on each', async () => {
    const view = { id: 'a/b', title: 't', recipients: [] };
    const { requests, fetch } = answering(
      () => new Response(JSON.stringify(view), { status: 200, headers: { 'content-type': 'application/json' } }),
      () => new Response(null, { status: 204 }),
      () => new Response('', { status: 200 }),
    );
    const sender = client(fetch);

    expect(await sender.getOffer('a/b')).toEqual(view);
    await expect(sender.completeOffer('a/b', ['w1'])).resolves.toBeUndefined();
    await expect(sender.withdrawOffer('a/b')).resolves.toBeUndefined();

    expect(requests.map((r) => `${r.method} ${r.url.pathname}?${r.url.search.slice(1)}`)).toEqual([
      'GET /offer/a%2Fb?api-version=1.0',
      'POST /offer/a%2Fb/complete?api-version=1.0',
      'GET /offer/a%2Fb/withdraw?api-version=1.0',
    ]);
    expect(JSON.parse(requests[1].body)).toEqual(['w1']);
  });

  it('throws a validation failure as OffersApiError with the problem and each field’s messages', async () => {
    const body = problem(400, 'validation-failed', { errors: { 'events[0].end': ['end must be after start'], title: ['title is required'] } });
    const { fetch } = answering(json(400, body));

    const error = await client(fetch).createOffer(offer).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OffersApiError);
    const failure = error as OffersApiError;
    expect(failure).toMatchObject({ name: 'OffersApiError', operation: 'POST /offer', status: 400, title: 'validation-failed', detail: 'validation-failed happened', retryAfterSeconds: undefined });
    expect(failure.problemName).toBe('validation-failed');
    expect(failure.problem).toEqual(body);
    expect(failure.errors['events[0].end']).toEqual(['end must be after start']);
    expect(failure.message).toBe(
      'POST /offer answered 400 validation-failed: validation-failed happened (events[0].end: end must be after start, title: title is required)',
    );
  });

  it('gives a refusal without problem+json (a proxy’s page, an empty body) a problem made from the status', async () => {
    const { fetch } = answering(
      () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' } }),
      () => new Response(null, { status: 404 }),
    );
    const sender = client(fetch);

    const gateway = (await sender.getOffer('x').catch((e: unknown) => e)) as OffersApiError;
    expect(gateway.problem).toEqual({ type: 'about:blank', title: 'Bad Gateway', status: 502, detail: '<html>Bad gateway</html>' });
    expect(gateway.errors).toEqual({});
    const missing = (await sender.getOffer('x').catch((e: unknown) => e)) as OffersApiError;
    expect(missing).toMatchObject({ status: 404, type: 'about:blank', title: 'HTTP 404', detail: '' });
  });

  it('throws a 429 at once by default, with its Retry-After', async () => {
    const { requests, fetch } = answering(json(429, problem(429, 'rate-limited'), { 'retry-after': '17' }));

    const error = (await client(fetch).getOffer('x').catch((e: unknown) => e)) as OffersApiError;

    expect(error).toBeInstanceOf(OffersApiError);
    expect([error.status, error.problemName, error.retryAfterSeconds]).toEqual([429, 'rate-limited', 17]);
    expect(requests).toHaveLength(1);
  });

  it('with rateLimitRetries, waits out Retry-After and sends the same request again', async () => {
    const { requests, fetch } = answering(
      json(429, problem(429, 'rate-limited'), { 'retry-after': '1' }),
      () => new Response('id-1', { status: 201 }),
    );
    const started = Date.now();

    expect(await client(fetch, { rateLimitRetries: 2 }).createOffer(offer, { idempotencyKey: 'k' })).toEqual({ id: 'id-1', replayed: false });

    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(requests).toHaveLength(2);
    expect(requests[1].body).toBe(requests[0].body);
    expect(requests[1].headers.get('idempotency-key')).toBe('k');
  });

  it('with rateLimitRetries, gives up after that many, or at once when Retry-After is missing or over the longest wait', async () => {
    const limited = (retryAfter?: string) => json(429, problem(429, 'rate-limited'), retryAfter === undefined ? {} : { 'retry-after': retryAfter });

    const exhausted = answering(limited('0'));
    const error = (await client(exhausted.fetch, { rateLimitRetries: 2 }).getOffer('x').catch((e: unknown) => e)) as OffersApiError;
    expect([error.status, error.retryAfterSeconds, exhausted.requests.length]).toEqual([429, 0, 3]);

    const silent = answering(limited());
    await expect(client(silent.fetch, { rateLimitRetries: 2 }).getOffer('x')).rejects.toMatchObject({ status: 429, retryAfterSeconds: undefined });
    expect(silent.requests).toHaveLength(1);

    const long = answering(limited('120'));
    await expect(client(long.fetch, { rateLimitRetries: 2 }).getOffer('x')).rejects.toMatchObject({ status: 429, retryAfterSeconds: 120 });
    expect(long.requests).toHaveLength(1);
  });

  it('stops waiting for Retry-After when the call is aborted', async () => {
    const { fetch } = answering(json(429, problem(429, 'rate-limited'), { 'retry-after': '30' }));
    const controller = new AbortController();
    const call = client(fetch, { rateLimitRetries: 1 }).getOffer('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('retryAfterSeconds', () => {
  const headers = (value?: string) => new Headers(value === undefined ? {} : { 'retry-after': value });

  it('reads seconds, or a date as the whole seconds until it, never negative', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterSeconds(headers('42'), now)).toBe(42);
    expect(retryAfterSeconds(headers('Tue, 01 Jan 2030 00:00:09 GMT'), now - 500)).toBe(10);
    expect(retryAfterSeconds(headers('Tue, 01 Jan 2030 00:00:00 GMT'), now + 5_000)).toBe(0);
  });

  it('is undefined when the header is absent or unreadable', () => {
    expect(retryAfterSeconds(headers())).toBeUndefined();
    expect(retryAfterSeconds(headers('soon'))).toBeUndefined();
    expect(retryAfterSeconds(headers('-3'))).toBeUndefined();
  });
});
