import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboundClient } from '@availability/outbound-http';
import { verifyRequest } from '@availability/webhook-signing';
import { mergeSuggestions, SuggestionFanOut, type SuggestionProvider } from './suggestion-fan-out.js';

const SECRET = 'fan-out-secret-0123456789';
const contact = (email: string, rating = 5) => ({ name: `N ${email}`, emailAddress: email, ratings: [{ rating, ratingProvider: 'P', lastWorked: '2024-01-01' }] });

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const servers: Server[] = [];
// The slow provider's replies, held until the suite ends: it answers only after every search has given up on it.
const heldReplies: ServerResponse[] = [];
const received: Array<{ body: string; verified: boolean }> = [];

async function stub(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body, verified: verifyRequest({ request: req, body, secret: SECRET }).ok });
      handler(req, body, res);
    });
  });
  server.listen(0, 'localhost');
  await once(server, 'listening');
  servers.push(server);
  return `http://localhost:${(server.address() as { port: number }).port}/base`;
}

const json = (res: ServerResponse, value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));

describe('SuggestionFanOut', () => {
  const client = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
  // Generous enough for a busy machine to connect to five local stubs; the slow one never answers within it.
  const fanOut = new SuggestionFanOut(client, { timeoutMs: 3_000, maxReplyBytes: 10_000, maxPerProvider: 50 });
  let providers: SuggestionProvider[];

  beforeAll(async () => {
    const provider = async (id: string, handler: Handler): Promise<SuggestionProvider> => ({
      organisationId: id,
      name: `Org ${id}`,
      baseUrl: await stub(handler),
      secrets: [SECRET],
    });
    providers = [
      await provider('healthy', (_req, _body, res) => json(res, [contact('a@example.com'), contact('B@example.com', 3)])),
      await provider('slow', (_req, _body, res) => void heldReplies.push(res)),
      await provider('malformed', (_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[{"name": ')),
      await provider('ratings', (_req, _body, res) => json(res, [contact('bad@example.com', 7), contact('b@EXAMPLE.com', 4)])),
      await provider('failing', (_req, _body, res) => res.writeHead(500).end('boom')),
      await provider('huge', (_req, _body, res) => json(res, Array.from({ length: 1000 }, (_, i) => contact(`h${i}@example.com`)))),
    ];
  });

  afterAll(async () => {
    for (const res of heldReplies) json(res, [contact('slow@example.com')]);
    await client.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('returns what arrived in time, with each provider’s outcome, signed spec 2.6 bodies and de-duplicated results', async () => {
    received.length = 0;
    // The slow provider has not answered when this returns: the search ends at the timeout, not at the slowest reply.
    const result = await fanOut.search(providers, { filter: 'pick', userEmailAddresses: ['hirer@acme.example'] });
    expect(heldReplies.length).toBe(1);
    expect(heldReplies[0].writableEnded).toBe(false);

    const outcome = Object.fromEntries(result.providers.map((p) => [p.organisationId, p]));
    expect(outcome.healthy).toMatchObject({ status: 'ok', returned: 2, dropped: 0 });
    expect(outcome.slow).toMatchObject({ status: 'timeout', returned: 0 });
    expect(outcome.malformed).toMatchObject({ status: 'invalid', error: expect.stringMatching(/JSON/) });
    expect(outcome.ratings).toMatchObject({ status: 'ok', returned: 1, dropped: 1 });
    expect(outcome.failing).toMatchObject({ status: 'error', error: expect.stringMatching(/500/) });
    // 1000 suggestions are over the 10,000-byte bound: the reply is not read whole.
    expect(outcome.huge).toMatchObject({ status: 'invalid', error: expect.stringMatching(/larger than 10000 bytes/) });

    const emails = result.suggestions.map((s) => s.emailAddress);
    expect(emails).toEqual(['a@example.com', 'B@example.com']);
    const b = result.suggestions[1];
    expect(b.organisationId).toBe('healthy');
    expect(b.organisationIds).toEqual(['healthy', 'ratings']);
    expect(b.ratings.map((r) => r.rating)).toEqual([3, 4]);

    expect(received.length).toBe(6);
    for (const request of received) {
      expect(JSON.parse(request.body)).toEqual({ filter: 'pick', userEmailAddresses: ['hirer@acme.example'] });
      expect(request.verified).toBe(true);
    }
  });

  it('leaves filter out when there is none, and reports providers it cannot call', async () => {
    received.length = 0;
    const result = await fanOut.search(
      [providers[0], { organisationId: 'x', name: null, baseUrl: null, secrets: [], unavailable: 'not a provider' }],
      { userEmailAddresses: ['h@example.com'] },
    );
    expect(JSON.parse(received[0].body)).toEqual({ userEmailAddresses: ['h@example.com'] });
    expect(result.providers[1]).toMatchObject({ organisationId: 'x', status: 'error', error: 'not a provider' });
  });
});

describe('SuggestionFanOut when a call never settles', () => {
  it('still answers after the timeout, with that provider timed out and the others kept', async () => {
    const answered = { status: 200, headers: {}, body: JSON.stringify([contact('kept@example.com')]), truncated: false, durationMs: 1 };
    const client = {
      send: ({ url }: { url: string }) => (url.includes('stuck') ? new Promise(() => undefined) : Promise.resolve(answered)),
    } as unknown as OutboundClient;
    const fanOut = new SuggestionFanOut(client, { timeoutMs: 100, maxReplyBytes: 10_000, maxPerProvider: 50 });
    const provider = (id: string): SuggestionProvider => ({ organisationId: id, name: id, baseUrl: `http://localhost:9/${id}`, secrets: [SECRET] });
    const started = performance.now();
    const result = await fanOut.search([provider('fine'), provider('stuck')], { userEmailAddresses: ['h@example.com'] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.providers.map((p) => [p.organisationId, p.status])).toEqual([
      ['fine', 'ok'],
      ['stuck', 'timeout'],
    ]);
    expect(result.suggestions.map((s) => s.emailAddress)).toEqual(['kept@example.com']);
  });
});

describe('mergeSuggestions', () => {
  it('keeps the first occurrence of an address (ignoring case) and merges distinct ratings', () => {
    const merged = mergeSuggestions([
      { organisationId: 'o1', suggestions: [contact('x@example.com', 5), contact('X@example.com', 5)] },
      { organisationId: 'o2', suggestions: [contact('x@EXAMPLE.com', 2), contact('y@example.com')] },
    ]);
    expect(merged.map((s) => [s.emailAddress, s.organisationIds, s.ratings.map((r) => r.rating)])).toEqual([
      ['x@example.com', ['o1', 'o2'], [5, 2]],
      ['y@example.com', ['o2'], [5]],
    ]);
  });
});
