import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, ServiceProcess } from '@availability/testing';
import { signRequest } from '@availability/webhook-signing';

/**
 * A captured call sent again within the 5 minutes the timestamp allows. The `hmac` scheme (the
 * example integrator's default) does not sign `webhook-id`, so whoever replays a call may change it
 * or leave it out: the integrator tells a repeat by the signed body's `eventId`, and refuses a
 * webhook without an id of the platform's form (`<eventId>:<organisationId>`).
 */
const SECRET = 'replay-test-secret-0123456789abcdef';
const ORGANISATION = randomUUID();
let integrator: ServiceProcess;

beforeAll(async () => {
  integrator = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_SECRET: SECRET } });
});

afterAll(async () => {
  await integrator?.stop();
});

function signed(method: 'GET' | 'POST', path: string, body: string, webhookId: string): Record<string, string> {
  return { ...signRequest({ secrets: [SECRET], method, pathWithQuery: path, body, webhookId }), ...(body === '' ? {} : { 'content-type': 'application/json' }) };
}

async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body = '') {
  const response = await fetch(`${integrator.url}${path}`, { method, headers, body: body === '' ? undefined : body });
  return { status: response.status, type: response.headers.get('content-type'), json: (await response.json()) as Record<string, unknown> };
}

const withoutId = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'webhook-id'));

describe('example integrator: replays within the timestamp tolerance', () => {
  it('takes a captured Worker Offer Response sent again with another webhook-id for the repeat it is', async () => {
    const eventId = randomUUID();
    const body = JSON.stringify({ eventId, offerId: randomUUID(), workerId: randomUUID(), response: 'applied', respondedAt: new Date().toISOString() });
    const captured = signed('POST', '/offer/response', body, `${eventId}:${ORGANISATION}`);
    expect(await send('POST', '/offer/response', captured, body)).toMatchObject({ status: 200, json: { received: true } });

    const replayed = { ...captured, 'webhook-id': `${randomUUID()}:${ORGANISATION}` };
    expect(await send('POST', '/offer/response', replayed, body)).toMatchObject({ status: 200, json: { received: false } });

    const received = await send('GET', '/received', {});
    const acted = (received.json.items as Array<{ body: string; deliveries: number }>).filter((item) => item.body === body);
    expect(acted.map((item) => item.deliveries)).toEqual([2]);
  });

  it('refuses a webhook without a webhook-id, or with one that names no event, with a 400 problem', async () => {
    const eventId = randomUUID();
    const body = JSON.stringify({ eventId, offerId: randomUUID(), workerId: randomUUID(), response: 'rejected', respondedAt: new Date().toISOString() });
    const captured = signed('POST', '/offer/response', body, `${eventId}:${ORGANISATION}`);
    const workerPath = `/contact/new/${randomUUID()}`;
    const attempts = [
      { name: 'answer without an id', method: 'POST' as const, path: '/offer/response', headers: withoutId(captured), body },
      { name: 'contact without an id', method: 'GET' as const, path: workerPath, headers: withoutId(signed('GET', workerPath, '', `${randomUUID()}:${ORGANISATION}`)), body: '' },
      // The ids of /test/auth and /contact-suggestions calls name no event: not a webhook's.
      { name: 'contact with a /test/auth id', method: 'GET' as const, path: workerPath, headers: signed('GET', workerPath, '', `test-${randomUUID()}`), body: '' },
    ];
    for (const attempt of attempts) {
      const answer = await send(attempt.method, attempt.path, attempt.headers, attempt.body);
      expect({ attempt: attempt.name, status: answer.status, type: answer.type, errors: answer.json.errors }).toEqual({
        attempt: attempt.name,
        status: 400,
        type: expect.stringMatching(/^application\/problem\+json/),
        errors: { 'webhook-id': [expect.stringMatching(/webhook-id/)] },
      });
    }
    const received = await send('GET', '/received', {});
    const items = received.json.items as Array<{ body: string; path: string }>;
    expect(items.filter((item) => item.body === body || item.path === workerPath)).toEqual([]);
  });

  it('still takes each new event once, and a GET webhook by its webhook-id', async () => {
    const workerPath = `/contact/new/${randomUUID()}`;
    const headers = signed('GET', workerPath, '', `${randomUUID()}:${ORGANISATION}`);
    expect(await send('GET', workerPath, headers)).toMatchObject({ status: 200, json: { received: true } });
    expect(await send('GET', workerPath, headers)).toMatchObject({ status: 200, json: { received: false } });
  });
});

describe('example integrator with INTEGRATOR_SIGNATURE_SCHEME=v1', () => {
  let v1: ServiceProcess;

  beforeAll(async () => {
    v1 = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_SECRET: SECRET, INTEGRATOR_SIGNATURE_SCHEME: 'v1' } });
  });

  afterAll(async () => {
    await v1?.stop();
  });

  it('refuses a replay with another webhook-id as unsigned: v1 signs the id', async () => {
    const eventId = randomUUID();
    const body = JSON.stringify({ eventId, offerId: randomUUID(), workerId: randomUUID(), response: 'applied', respondedAt: new Date().toISOString() });
    const captured = signed('POST', '/offer/response', body, `${eventId}:${ORGANISATION}`);
    const post = async (headers: Record<string, string>) => (await fetch(`${v1.url}/offer/response`, { method: 'POST', headers, body })).status;
    expect(await post(captured)).toBe(200);
    expect(await post({ ...captured, 'webhook-id': `${randomUUID()}:${ORGANISATION}` })).toBe(401);
    expect(await post(withoutId(captured))).toBe(401);
    // /test/auth stays hmac, as the spec signs it.
    expect((await fetch(`${v1.url}/test/auth`, { headers: signed('GET', '/test/auth', '', `test-${randomUUID()}`) })).status).toBe(200);
  });
});
