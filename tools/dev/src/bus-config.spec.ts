import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeBusConfig, type WrittenBusConfig } from './bus-config.js';

describe('bus config for the NATS Helm chart', () => {
  let dir: string;
  let written: WrittenBusConfig;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bus-config-'));
    written = await writeBusConfig({ dir, listen: '0.0.0.0:4222', storeDir: '/data', subjectPrefix: '', stream: 'PLATFORM' });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('carries exactly the server config’s authorisation, as config.merge, and no seed', async () => {
    const serverConfig = JSON.parse((await readFile(written.configFile, 'utf8')).replace(/^#.*\n/, '')) as { authorization: unknown };
    const text = await readFile(written.helmValuesFile, 'utf8');
    expect(JSON.parse(text)).toEqual({ config: { merge: { authorization: serverConfig.authorization } } });
    const seeds = [...Object.values(written.credentials.services), written.credentials.operator].map((pair) => pair.seed);
    for (const seed of seeds) expect(text).not.toContain(seed);
  });

  it('is a configuration nats-server accepts when merged into one it did not write', async () => {
    const values = JSON.parse(await readFile(written.helmValuesFile, 'utf8')) as { config: { merge: Record<string, unknown> } };
    // Roughly what the chart renders: its own listen, cluster and JetStream settings, our merge on top.
    const merged = join(dir, 'merged.conf');
    await writeFile(merged, JSON.stringify({ port: 4222, server_name: 'nats-0', jetstream: { store_dir: join(dir, 'js') }, ...values.config.merge }));
    const { stderr, stdout } = await promisify(execFile)(process.env.NATS_SERVER_BIN || 'nats-server', ['-t', '-c', merged]);
    // A config it refuses makes it exit non-zero (execFile rejects); versions word success differently.
    expect(`${stdout}${stderr}`).toMatch(/is valid|test is successful/i);
  });
});
