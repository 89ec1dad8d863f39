import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import type { CredentialVerdict, VerifyCredentialRequest } from '@availability/contracts';
import type { RequestReply } from '@availability/messaging';
import { hashToken } from './credential-verifier.js';
import { CredentialPrincipals } from './credential-principals.js';
import { CredentialVerifier } from './credential-verifier.js';

const OPERATOR = 'operator-token-0123456789abcdef';
const KNOWN: Record<string, CredentialVerdict> = {
  [hashToken('apk_key')]: { kind: 'organisation', organisationId: 'org-1', apiKeyId: 'key-1' },
  [hashToken('wkt_one')]: { kind: 'worker', workerId: 'worker-1' },
  [hashToken('wkt_two')]: { kind: 'worker', workerId: 'worker-1' },
  [hashToken('put_user')]: { kind: 'user', userId: 'user-1', organisationId: 'org-1', role: 'member' },
};

/** The directory as the verifier asks it over NATS, recording what it was asked; `down` answers nothing. */
function directory(down = false) {
  const asked: string[] = [];
  const rpc = {
    subscribe: () => undefined,
    request: async (_pattern: string, { tokenHash }: VerifyCredentialRequest) => {
      asked.push(tokenHash);
      if (down) throw new Error('timeout');
      return KNOWN[tokenHash] ?? { kind: 'none' };
    },
  } as unknown as RequestReply;
  const verifier = new CredentialVerifier(rpc, { cacheTtlMs: 60_000, timeoutMs: 100 });
  return { asked, verifier, principals: new CredentialPrincipals(verifier, { cacheTtlMs: 60_000, timeoutMs: 100, operatorTokens: [OPERATOR] }) };
}

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;

describe('whom the rate limit charges a request to', () => {
  it('is the credential’s holder, the Bearer token first, else X-Api-Key, as the guards read them', async () => {
    const { principals } = directory();
    expect(await principals.principalOf(request({ authorization: 'Bearer apk_key' }))).toBe('api-key:key-1');
    expect(await principals.principalOf(request({ 'x-api-key': ' apk_key ' }))).toBe('api-key:key-1');
    expect(await principals.principalOf(request({ authorization: 'junk', 'x-api-key': 'apk_key' }))).toBe('api-key:key-1');
    expect(await principals.principalOf(request({ authorization: 'Basic YTpi', 'x-api-key': 'apk_key' }))).toBe('api-key:key-1');
    expect(await principals.principalOf(request({ authorization: 'bearer wkt_one', 'x-api-key': 'apk_key' }))).toBe('worker:worker-1');
    expect(await principals.principalOf(request({ authorization: 'Bearer wkt_two' }))).toBe('worker:worker-1');
    expect(await principals.principalOf(request({ authorization: 'Bearer put_user' }))).toBe('user:user-1');
  });

  it('is nobody (the client address) for a missing, unknown, over-long or unverifiable credential', async () => {
    const { principals, asked } = directory();
    expect(await principals.principalOf(request({}))).toBeUndefined();
    expect(await principals.principalOf(request({ authorization: 'Bearer apk_made-up' }))).toBeUndefined();
    expect(await principals.principalOf(request({ authorization: 'Bearer made-up', 'x-api-key': 'apk_key' }))).toBeUndefined();
    expect(await principals.principalOf(request({ 'x-api-key': 'apk_key, apk_key' }))).toBeUndefined();
    expect(await principals.principalOf(request({ authorization: `Bearer ${'x'.repeat(513)}` }))).toBeUndefined();
    expect(asked).not.toContain(hashToken('x'.repeat(513)));
    expect(await directory(true).principals.principalOf(request({ authorization: 'Bearer apk_key' }))).toBeUndefined();
  });

  it('is the operator for the service’s operator token, which is never sent to the directory', async () => {
    const { principals, asked } = directory();
    const operator = await principals.principalOf(request({ authorization: `Bearer ${OPERATOR}` }));
    expect(operator).toMatch(/^operator:[A-Za-z0-9_-]{22}$/);
    expect(operator).not.toContain(OPERATOR);
    expect(await principals.principalOf(request({ 'x-api-key': OPERATOR }))).toBe(operator);
    expect(asked).toEqual([]);
  });

  it('asks the directory once per request: the guard after it gets the same answer, a failure too', async () => {
    const up = directory();
    const seen = request({ authorization: 'Bearer apk_key' });
    await up.principals.principalOf(seen);
    await expect(up.verifier.verifyFor(seen, 'apk_key')).resolves.toMatchObject({ kind: 'organisation' });
    expect(up.asked).toHaveLength(1);
    const down = directory(true);
    const failed = request({ authorization: 'Bearer apk_key' });
    expect(await down.principals.principalOf(failed)).toBeUndefined();
    await expect(down.verifier.verifyFor(failed, 'apk_key')).rejects.toMatchObject({ problem: { status: 503 } });
    expect(down.asked).toHaveLength(1);
  });
});
