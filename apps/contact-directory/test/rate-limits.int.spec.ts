import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, ServiceProcess, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * Whom contact-directory's rate limit counts a request against, with a proxy in front of it (the
 * portal, which asks for sign-in links on each browser's behalf): an instance limited to 4 requests a
 * minute that trusts the proxy's address alone. The proxy stands at 127.0.0.2, clients at 127.0.0.1
 * (Linux answers on the whole of 127.0.0.0/8).
 */
const LIMIT = 4;
const PROXY = '127.0.0.2';
const CLIENT = '127.0.0.1';
const PATH = '/portal/company-profile';
let platform: TestPlatform;
let directory: ServiceProcess;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory']);
  directory = await ServiceProcess.start({
    app: 'contact-directory',
    port: await freePort(),
    env: { ...platform.env, RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: PROXY, QUEUE_PREFIX: `${platform.env.QUEUE_PREFIX}_limited` },
  });
});

afterAll(async () => {
  await directory?.stop();
  await platform?.stop();
});

/** A GET from `from`, with exactly these headers. */
function get(from: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(directory.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, path: PATH, localAddress: from, headers, agent: false }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const statuses = async (count: number, send: (i: number) => Promise<number>) => {
  const answered: number[] = [];
  for (let i = 0; i < count; i += 1) answered.push(await send(i));
  return answered;
};

describe('client addresses behind a trusted proxy', () => {
  it('count a client that is not a listed proxy by its own address, whatever X-Forwarded-For it sends', async () => {
    const answered = await statuses(LIMIT + 2, (i) => get(CLIENT, { 'x-forwarded-for': `203.0.113.${100 + i}` }));
    expect(answered).toEqual([...Array(LIMIT).fill(401), 429, 429]);
  });

  it('count a request from the listed proxy by the address it names; by the proxy’s own when it names no address', async () => {
    expect(await statuses(LIMIT + 1, () => get(PROXY, { 'x-forwarded-for': '198.51.100.1' }))).toEqual([...Array(LIMIT).fill(401), 429]);
    expect(await get(PROXY, { 'x-forwarded-for': '198.51.100.2' })).toBe(401);
    // A client's own header before the proxy's entry is not believed: the proxy's entry is the client.
    expect(await get(PROXY, { 'x-forwarded-for': '198.51.100.3, 198.51.100.1' })).toBe(429);
    const own = await statuses(LIMIT + 1, (i) => get(PROXY, i % 2 === 0 ? { 'x-forwarded-for': `garbage-${i}` } : {}));
    expect(own).toEqual([...Array(LIMIT).fill(401), 429]);
  });

  it('count a made-up token by the client address the proxy names, and the operator as one principal in either header', async () => {
    const madeUp = await statuses(LIMIT + 1, () => get(PROXY, { 'x-forwarded-for': '198.51.100.9', authorization: `Bearer put_${randomBytes(32).toString('base64url')}` }));
    expect(madeUp).toEqual([...Array(LIMIT).fill(401), 429]);
    expect(await get(PROXY, { 'x-forwarded-for': '198.51.100.9' })).toBe(429);
    const operator = platform.env.DIRECTORY_ADMIN_TOKEN;
    const forms: Array<Record<string, string>> = [{ authorization: `Bearer ${operator}` }, { 'x-api-key': operator, authorization: 'junk' }, { authorization: `bearer ${operator}`, 'x-forwarded-for': '198.51.100.10' }];
    // The operator token opens no portal page (401), but is counted as the operator wherever it comes from.
    const answered = await statuses(LIMIT + forms.length, (i) => get(i % 2 === 0 ? CLIENT : PROXY, forms[i % forms.length]));
    expect(answered).toEqual([...Array(LIMIT).fill(401), ...Array(forms.length).fill(429)]);
  });
});
