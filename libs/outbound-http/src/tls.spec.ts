import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readCaFile } from '@availability/service-core';
import { createTestCertificates, type TestCertificates, type TestServerCertificate } from '@availability/testing';
import { OutboundClient, OutboundRequestError } from './outbound-client.js';

const policy = { allowLoopback: true, allowPrivate: false };
let certificates: TestCertificates;
const servers: Server[] = [];

async function httpsServer(certificate: TestServerCertificate): Promise<string> {
  const server = createServer(certificate, (_req, res) => res.end('over TLS'));
  server.listen(0, 'localhost');
  await once(server, 'listening');
  servers.push(server);
  return `https://localhost:${(server.address() as { port: number }).port}`;
}

async function tlsFailure(client: OutboundClient, url: string): Promise<OutboundRequestError> {
  const error = await client.send({ url: `${url}/test`, method: 'GET', timeoutMs: 2000 }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundRequestError);
  expect((error as OutboundRequestError).kind).toBe('tls');
  return error as OutboundRequestError;
}

beforeAll(async () => {
  certificates = await createTestCertificates();
});

afterAll(async () => {
  for (const server of servers) server.close();
  await certificates.remove();
});

describe('https integrators', () => {
  it('verifies the certificate against the host name and the configured CA', async () => {
    const client = new OutboundClient({ policy, extraCaCertificates: readCaFile(certificates.caFile) });
    try {
      const response = await client.send({ url: `${await httpsServer(certificates.localhost)}/test`, method: 'GET', timeoutMs: 2000 });
      expect(response).toMatchObject({ status: 200, body: 'over TLS' });
    } finally {
      await client.close();
    }
  });

  it('refuses a certificate from a CA it does not know, in plain words', async () => {
    const client = new OutboundClient({ policy });
    try {
      const error = await tlsFailure(client, await httpsServer(certificates.localhost));
      expect(error.message).toMatch(/^the certificate is signed by an authority the platform does not trust/);
    } finally {
      await client.close();
    }
  });

  it('refuses an expired certificate and one made out for another host name', async () => {
    const client = new OutboundClient({ policy, extraCaCertificates: readCaFile(certificates.caFile) });
    try {
      expect((await tlsFailure(client, await httpsServer(certificates.expired))).message).toBe('the certificate has expired');
      // The names the certificate is made out for are the other side's: not repeated.
      const wrongName = await tlsFailure(client, await httpsServer(certificates.otherName));
      expect(wrongName.message).toBe('the certificate is not valid for localhost');
    } finally {
      await client.close();
    }
  });
});

describe('readCaFile', () => {
  it('reads the PEM certificates of a file', () => {
    expect(readCaFile(certificates.caFile)).toBe(certificates.caCert);
  });

  it('says plainly what is wrong with a file that cannot serve', () => {
    expect(() => readCaFile(`${certificates.dir}/missing.pem`)).toThrow(/cannot be read/);
    expect(() => readCaFile(`${certificates.dir}/localhost.key`)).toThrow(/holds no PEM certificate/);
  });
});
