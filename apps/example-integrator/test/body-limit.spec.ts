import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signRequest } from '@availability/webhook-signing';
import { freePort, ServiceProcess } from '@availability/testing';

/** The example integrator as deployed (its own process), answering a body over its 256 KiB limit. */
const SECRET = 'body-limit-integrator-secret-0123';
let integrator: ServiceProcess;

beforeAll(async () => {
  integrator = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_SECRET: SECRET } });
}, 60_000);

afterAll(async () => {
  await integrator?.stop();
});

describe('example-integrator body limit', () => {
  it('answers a signed body over the limit with a payload-too-large problem', async () => {
    const body = JSON.stringify({ filter: 'x'.repeat(300 * 1024), userEmailAddresses: ['a@example.com'] });
    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: '/contact-suggestions', body, webhookId: 'body-limit-1' });
    const response = await fetch(`${integrator.url}/contact-suggestions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ type: 'https://availability.example/problems/payload-too-large', status: 413, title: 'Payload Too Large' });
  });
});
