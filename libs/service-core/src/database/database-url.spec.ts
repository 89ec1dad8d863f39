import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { databaseUrl } from './database.module.js';

const dir = mkdtempSync(join(tmpdir(), 'database-url-'));
const caFile = join(dir, 'ca.pem');
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'ca.key'), '-out', caFile, '-days', '1', '-subj', '/CN=Test CA'], { stdio: 'ignore' });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('databaseUrl', () => {
  it('is DATABASE_URL as it is without DATABASE_CA_FILE', () => {
    expect(databaseUrl({ DATABASE_URL: 'postgres://platform@db.internal/platform?sslmode=verify-full', DATABASE_CA_FILE: '' })).toBe('postgres://platform@db.internal/platform?sslmode=verify-full');
  });

  it('requires TLS, verified against DATABASE_CA_FILE, when it is set', () => {
    const url = new URL(databaseUrl({ DATABASE_URL: 'postgres://platform:pw@db.internal:5432/platform?application_name=x', DATABASE_CA_FILE: caFile }));
    expect([url.hostname, url.password, url.searchParams.get('application_name'), url.searchParams.get('sslmode'), url.searchParams.get('sslrootcert')]).toEqual([
      'db.internal',
      'pw',
      'x',
      'verify-full',
      caFile,
    ]);
  });

  it('refuses a CA file that cannot serve, and a CA with TLS turned off, naming the setting', () => {
    expect(() => databaseUrl({ DATABASE_URL: 'postgres://db.internal/platform', DATABASE_CA_FILE: join(dir, 'missing.pem') })).toThrow(/DATABASE_CA_FILE: the CA file cannot be read \(ENOENT\)/);
    expect(() => databaseUrl({ DATABASE_URL: 'postgres://db.internal/platform', DATABASE_CA_FILE: join(dir, 'ca.key') })).toThrow(/DATABASE_CA_FILE: the CA file holds no PEM certificate/);
    expect(() => databaseUrl({ DATABASE_URL: 'postgres://db.internal/platform?sslmode=disable', DATABASE_CA_FILE: caFile })).toThrow(/DATABASE_CA_FILE: is set, but DATABASE_URL says sslmode=disable/);
  });
});
