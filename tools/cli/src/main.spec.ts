import { describe, expect, it } from '@jest/globals';
import { HttpError } from '@availability/platform-client';
import { describeFailure, runCli } from './main.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), env: {} } };
}

describe('runCli', () => {
  it('prints usage for --help and exits 0', async () => {
    const { out, io: streams } = io();
    expect(await runCli(['--help'], streams)).toBe(0);
    expect(out.join('')).toMatch(/npm run -s cli -- seed/);
    expect(out.join('')).toMatch(/revoke-key <apiKeyId>/);
  });

  it('explains wrong usage on stderr and exits 2', async () => {
    const { out, err, io: streams } = io();
    expect(await runCli(['seed', '--kind', 'shop'], streams)).toBe(2);
    expect(err.join('')).toMatch(/error: --kind must be one of/);
    expect(err.join('')).toMatch(/--help/);
    expect(out).toEqual([]);
  });

  it('says the directory cannot be reached and exits 1', async () => {
    const { out, err, io: streams } = io();
    expect(await runCli(['seed', '--directory-url', 'http://127.0.0.1:9'], streams)).toBe(1);
    expect(err.join('')).toMatch(/could not reach contact-directory at http:\/\/127\.0\.0\.1:9/);
    expect(out).toEqual([]);
  });
});

describe('describeFailure', () => {
  it('uses the problem detail and field errors', () => {
    const error = new HttpError({
      status: 400,
      headers: new Headers(),
      text: '',
      json: { detail: 'The request is not valid.', errors: { name: ['name must not be blank'] } },
    });
    expect(describeFailure(error, 'http://d')).toBe('contact-directory answered 400: The request is not valid.\n  name: name must not be blank');
  });

  it('points at the admin token on 401', () => {
    const error = new HttpError({ status: 401, headers: new Headers(), text: '', json: { detail: 'Send the admin token.' } });
    expect(describeFailure(error, 'http://d')).toMatch(/Check --admin-token/);
  });
});
