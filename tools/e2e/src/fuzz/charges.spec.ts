import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import fc from 'fast-check';
import { presentedToken as authenticationsToken } from '@availability/auth';
import { credentialCombination, presentedToken } from './charges.js';
import { send } from './driver.js';

/** Echoes the token authentication takes from the headers as they arrive. */
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => response.end(JSON.stringify(authenticationsToken({ headers: request.headers } as FastifyRequest) ?? null)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe('the fuzzer’s model of the credential a service reads', () => {
  it('takes the token authentication takes, from headers as the driver sends them', async () => {
    const headers = credentialCombination(['apk_valid', 'wkt_valid'], ['put_other', 'operator-token']);
    await fc.assert(
      fc.asyncProperty(headers, async (generated) => {
        const answer = await send(url, { app: 'echo', operation: 'echo', method: 'GET', path: '/', headers: generated }, '');
        expect('text' in answer ? JSON.parse(answer.text) : answer).toEqual(presentedToken(generated) ?? null);
      }),
      { numRuns: 300 },
    );
  });
});
