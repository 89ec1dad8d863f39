import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable, isUntrustedDatabase } from './database-unavailable.js';

/** An error as pg reports one from the server: a message and its SQLSTATE. */
const serverError = (code: string, message = 'error') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('knows a server that is going, starting, full, cut off or a standby', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '08006', '08001', '08P01', '25006']) expect(isDatabaseUnavailable(serverError(code))).toBe(true);
  });

  it('knows a socket that could not connect or was cut', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']) expect(isDatabaseUnavailable(serverError(code))).toBe(true);
  });

  it('knows the client’s own words for a lost or slow connection, also as a cause or under TypeORM', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout', { cause: new Error('x') }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: serverError('ECONNREFUSED') }))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly')))).toBe(true);
  });

  it('leaves statements that are wrong, and everything else, to be what they are', () => {
    for (const code of ['23505', '22001', '42P01', '40001', '57014', 'ERR_INVALID_ARG_TYPE']) expect(isDatabaseUnavailable(serverError(code))).toBe(false);
    expect(isDatabaseUnavailable(new QueryFailedError('INSERT', [], serverError('23505', 'duplicate key value')))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Something else terminated'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('Connection terminated')).toBe(false);
  });
});

describe('isUntrustedDatabase', () => {
  it('knows a certificate that cannot be trusted, or a server without TLS: unavailable too, and not mended by waiting', () => {
    const tls = ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER'];
    for (const code of tls) {
      expect([code, isUntrustedDatabase(serverError(code)), isDatabaseUnavailable(serverError(code))]).toEqual([code, true, true]);
    }
    const noTls = new Error('The server does not support SSL connections');
    expect([isUntrustedDatabase(noTls), isDatabaseUnavailable(noTls)]).toEqual([true, true]);
    expect(isUntrustedDatabase(new Error('at start-up', { cause: serverError('CERT_HAS_EXPIRED') }))).toBe(true);
  });

  it('leaves a server that is merely away, and a wrong statement, alone', () => {
    for (const code of ['ECONNREFUSED', '57P01', '08006', '23505', '28P01']) expect(isUntrustedDatabase(serverError(code))).toBe(false);
  });
});
