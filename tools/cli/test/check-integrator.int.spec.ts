import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestPlatform, type TestPlatform } from '@availability/testing';

const CLI = resolve(process.cwd(), 'dist/tools/cli/src/main.js');
const SECRET = 'kit-example-integrator-secret-0123456789';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The check names with FAIL in front, in the order printed. */
function failed(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line.startsWith('FAIL ')).map((line) => line.slice(5).split(':')[0]);
}

describe('check-integrator (the conformance kit)', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform(['example-integrator'], { INTEGRATOR_SECRET: SECRET });
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('the example integrator passes every check, and is told what the kit cannot see', async () => {
    const run = await cli(['check-integrator', platform.url('example-integrator'), '--secret', SECRET, '--scheme', 'hmac']);
    expect({ code: run.code, failed: failed(run.stdout) }).toEqual({ code: 0, failed: [] });
    expect(run.stdout.split('\n').filter((line) => line.startsWith('PASS '))).toEqual([
      'PASS GET /test answers 2xx',
      'PASS signed GET /test/auth answers 2xx',
      'PASS forged signature is refused',
      'PASS stale timestamp is refused',
      'PASS tampered body is refused',
      'PASS repeated webhook-id is acknowledged',
      'PASS older answer after a newer one is acknowledged',
      'PASS every answer within 10000 ms',
    ]);
    expect(run.stdout).toContain('ADVICE repeated webhook-id is acknowledged: the kit cannot see whether the repeat was applied twice');
    expect(run.stdout).toContain('ADVICE older answer after a newer one is acknowledged: the kit cannot see whether the older answer');
  });

  it('a wrong secret fails the signed /test/auth and says to check the secret', async () => {
    const run = await cli(['check-integrator', platform.url('example-integrator'), '--secret', 'not-the-secret-0123456789']);
    expect(run.code).toBe(1);
    expect(failed(run.stdout)).toEqual(['signed GET /test/auth answers 2xx', 'repeated webhook-id is acknowledged', 'older answer after a newer one is acknowledged']);
    expect(run.stdout).toContain('check it is the secret given with --secret; it answered 401');
  });

  describe('a lax integrator that answers 200 to everything', () => {
    let server: Server;
    let baseUrl: string;

    beforeAll(async () => {
      server = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    });

    afterAll(async () => {
      await new Promise((closed) => server?.close(closed));
    });

    it('fails the forged, stale and tampered checks, each saying what to fix, and exits 1', async () => {
      const run = await cli(['check-integrator', baseUrl, '--secret', SECRET, '--timeout-ms', '5000']);
      expect({ code: run.code, failed: failed(run.stdout) }).toEqual({
        code: 1,
        failed: ['forged signature is refused', 'stale timestamp is refused', 'tampered body is refused'],
      });
      expect(run.stdout).toContain('FAIL forged signature is refused: your service accepted a GET /test/auth signed with the wrong secret (it answered 200): answer 401 unless');
      expect(run.stdout).toContain('FAIL stale timestamp is refused: your service accepted a GET /test/auth signed 15 minutes ago (it answered 200): answer 401 when');
      expect(run.stdout).toContain('FAIL tampered body is refused: your service accepted a POST /offer/response whose body was changed after it was signed');
      expect(run.stdout).toContain('PASS every answer within 5000 ms');
    });
  });

  it.each([
    [['check-integrator', 'http://localhost:1'], '--secret is required'],
    [['check-integrator', '--secret', 's'], 'exactly one argument'],
    [['check-integrator', 'not a url', '--secret', 's'], 'the base URL must be an http(s) URL'],
    [['check-integrator', 'http://localhost:1', '--secret', 's', '--scheme', 'v1a'], '--scheme v1a cannot be checked here'],
    [['check-integrator', 'http://localhost:1', '--secret', 's', '--scheme', 'sha1'], '--scheme must be hmac or v1'],
    [['check-integrator', 'http://localhost:1', '--secret', 's', '--timeout-ms', '0'], '--timeout-ms must be a whole number from 1 to'],
    [['seed', '--secret', 's'], '--secret is an option of check-integrator, not of seed'],
  ])('%j is wrong usage (exit 2): %s', async (args, message) => {
    const run = await cli(args);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toContain(message);
  });
});
