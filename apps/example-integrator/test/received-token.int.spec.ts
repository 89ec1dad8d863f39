import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, ServiceProcess } from '@availability/testing';

/** The example integrator's `/received` shows what the platform sent: only to the token's holder once one is set. */
describe('example-integrator /received', () => {
  const token = 'received-token-0123456789abcdefghij';
  let integrator: ServiceProcess;

  beforeAll(async () => {
    integrator = await ServiceProcess.start({ app: 'example-integrator', port: await freePort(), env: { INTEGRATOR_RECEIVED_TOKEN: token } });
  });

  afterAll(async () => {
    await integrator?.stop();
  });

  const call = (method: string, authorization?: string) =>
    fetch(`${integrator.url}/received`, { method, headers: authorization ? { authorization } : {} });

  it('answers 401 problem+json without the token or with another, and serves its holder', async () => {
    for (const method of ['GET', 'DELETE']) {
      for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`]) {
        const refused = await call(method, authorization);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
    const listed = await call('GET', `Bearer ${token}`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ count: 0, items: [] });
    expect((await call('DELETE', `Bearer ${token}`)).status).toBe(204);
  });
});
