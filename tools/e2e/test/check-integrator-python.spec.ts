import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '@availability/testing';
import { PythonIntegrator } from '../src/python-integrator.js';

/**
 * The conformance kit (`check-integrator`) against an integrator that shares no code with it: the
 * Python integrator, which verifies hmac and v1 with its own code, passes every check.
 */
const CLI = resolve(process.cwd(), 'dist/tools/cli/src/main.js');
const SECRET = 'python-kit-secret-0123456789';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('check-integrator against the Python integrator', () => {
  let integrator: PythonIntegrator;

  beforeAll(async () => {
    integrator = await PythonIntegrator.start({ port: await freePort(), secret: SECRET, basePath: '/hooks/v1', receivedToken: 'python-kit-received-token' });
  });

  afterAll(async () => {
    await integrator?.stop();
  });

  it('passes every check signed with hmac and v1 (the platform\'s default schemes)', async () => {
    const run = await cli(['check-integrator', integrator.baseUrl, '--secret', SECRET, '--scheme', 'hmac', '--scheme', 'v1']);
    const lines = run.stdout.split('\n').filter((line) => line.startsWith('PASS ') || line.startsWith('FAIL '));
    expect({ code: run.code, failed: lines.filter((line) => line.startsWith('FAIL ')), stderr: run.stderr }).toEqual({ code: 0, failed: [], stderr: '' });
    expect(lines).toHaveLength(8);
  });

  it('applied what the kit cannot see as it should: the repeat not twice, the older answer not at all', async () => {
    const { calls } = await integrator.received();
    const answers = calls.filter((call) => call.call === 'offer-response' && call.status === 204) as Array<(typeof calls)[number] & { stale?: boolean }>;
    // An answer and its repeat, then a newer and an older one: four acknowledged (the tampered one was refused).
    expect(answers).toHaveLength(4);
    expect(answers.filter((call) => call.duplicate)).toHaveLength(1);
    expect(answers.filter((call) => call.stale)).toHaveLength(1);
    expect(answers.every((call) => call.verified.hmac && call.verified.standardWebhooks)).toBe(true);
  });
});
