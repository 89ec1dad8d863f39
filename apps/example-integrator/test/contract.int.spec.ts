import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Value } from '@sinclair/typebox/value';
import { ContactSuggestionsRequest, ContactSuggestionsResponse, INTEGRATOR_BODIES, integratorOpenApiDocument, WorkerOfferResponse } from '@availability/contracts';
import { freePort, ServiceProcess } from '@availability/testing';
import { signRequest } from '@availability/webhook-signing';

/**
 * The example integrator against the integrator contract (docs/integrator-openapi.json): each endpoint
 * called as the contract describes the platform's calls, with bodies valid under its request schemas,
 * answers with a status the contract expects and a body valid under its response schema.
 */
const SECRET = 'contract-test-secret-0123456789abcdef';
let integrator: ServiceProcess;

type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };
const contract = integratorOpenApiDocument() as { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  integrator = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_SECRET: SECRET } });
});

afterAll(async () => {
  await integrator?.stop();
});

/** Calls `path` (a contract path with its parameters filled in) as the platform would: signed unless told otherwise. */
async function call(method: 'GET' | 'POST', contractPath: string, path: string, body?: unknown, signed = true) {
  const operation = contract.paths[contractPath][method.toLowerCase()];
  const bodies = INTEGRATOR_BODIES[`${method} ${contractPath}`] ?? {};
  const text = body === undefined ? '' : JSON.stringify(body);
  if (body !== undefined) expect(bodies.request && Value.Check(bodies.request, body)).toBe(true);
  // The example integrator serves at its root; the platform signs the path as it appears on the request line.
  const headers = signed ? signRequest({ secrets: [SECRET], method, pathWithQuery: path, body: text, webhookId: `${randomUUID()}:${randomUUID()}` }) : {};
  const response = await fetch(`${integrator.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : text,
  });
  const documented = operation.responses[String(response.status)];
  expect([method, contractPath, response.status, documented !== undefined]).toEqual([method, contractPath, response.status, true]);
  // A documented JSON answer is checked against the contract's schema of it.
  const schema = documented.content?.['application/json'] ? bodies.response : undefined;
  const answer = schema ? await response.json() : undefined;
  if (schema) expect(Value.Errors(schema, answer).First()).toBeUndefined();
  return { status: response.status, answer };
}

describe('example integrator against the integrator contract', () => {
  it('GET /test answers 200 unsigned', async () => {
    expect((await call('GET', '/test', '/test', undefined, false)).status).toBe(200);
  });

  it('GET /test/auth answers 200 signed and 401 otherwise', async () => {
    expect((await call('GET', '/test/auth', '/test/auth')).status).toBe(200);
    expect((await call('GET', '/test/auth', '/test/auth', undefined, false)).status).toBe(401);
  });

  it('GET /test/auth answers 401 to a call signed with the wrong secret or a stale timestamp (spec 5.3)', async () => {
    const sent = async (secret: string, now?: Date) => {
      const headers = signRequest({ secrets: [secret], method: 'GET', pathWithQuery: '/test/auth', body: '', webhookId: `test-${randomUUID()}`, now });
      return (await fetch(`${integrator.url}/test/auth`, { headers })).status;
    };
    expect(await sent('not-the-integrator-secret-0123456789')).toBe(401);
    expect(await sent(SECRET, new Date(Date.now() - 15 * 60_000))).toBe(401);
    expect(await sent(SECRET)).toBe(200);
  });

  it('POST /offer/response takes a Worker Offer Response', async () => {
    const body = { eventId: randomUUID(), offerId: randomUUID(), workerId: randomUUID(), response: 'applied', respondedAt: new Date().toISOString() };
    expect(Value.Check(WorkerOfferResponse, body)).toBe(true);
    expect((await call('POST', '/offer/response', '/offer/response', body)).status).toBe(200);
  });

  it('GET /contact/new/{workerId} takes a worker id', async () => {
    expect((await call('GET', '/contact/new/{workerId}', `/contact/new/${randomUUID()}`)).status).toBe(200);
  });

  it('POST /contact-suggestions answers spec 2.7 suggestions for a spec 2.6 request', async () => {
    const request = { filter: 'a', userEmailAddresses: ['hirer@example.com'] };
    expect(Value.Check(ContactSuggestionsRequest, request)).toBe(true);
    const { status, answer } = await call('POST', '/contact-suggestions', '/contact-suggestions', request);
    expect(status).toBe(200);
    expect(Value.Check(ContactSuggestionsResponse, answer)).toBe(true);
    expect((answer as unknown[]).length).toBeGreaterThan(0);
  });
});
