import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { RedisServerProcess } from './redis-server-process.js';
import { type TestCertificates, writeCertificateFiles } from './test-certificates.js';

/**
 * A private redis-server for one test suite, keeping nothing on disk, so a test can take its data
 * away (`loseData`) without touching the Redis other suites share.
 */
export interface TestRedisServer {
  url: string;
  /**
   * Everything it held is gone, as after a restart without persistence: the process is killed
   * (`SIGKILL`) and a fresh, empty one starts on the same port. Clients see their connections drop
   * and reconnect to an empty server.
   */
  loseData(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestRedisServerOptions {
  /** Clients must connect over TLS (the certificates' `localhost` one), at `rediss://localhost:<port>`. */
  tls?: TestCertificates;
  /** What it does at `maxmemory`: `noeviction` (the default), as the platform requires; another one to see it refused. */
  maxmemoryPolicy?: string;
  /** False: CONFIG is disabled (renamed away), as managed Redis services do. */
  configCommand?: boolean;
}

export async function startTestRedisServer({ tls, maxmemoryPolicy = 'noeviction', configCommand = true }: TestRedisServerOptions = {}): Promise<TestRedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ap-redis-'));
  const port = await freePort();
  const args = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--maxmemory-policy', maxmemoryPolicy];
  if (!configCommand) args.push('--rename-command', 'CONFIG', '');
  if (tls) {
    const { certFile, keyFile } = await writeCertificateFiles(dir, 'server', tls.localhost);
    // No plain port at all; clients are not asked for certificates of their own.
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', certFile, '--tls-key-file', keyFile, '--tls-auth-clients', 'no');
  } else {
    args.push('--port', String(port));
  }
  let server = await RedisServerProcess.start(args);
  return {
    url: tls ? `rediss://localhost:${port}` : `redis://127.0.0.1:${port}`,
    async loseData() {
      await server.kill('SIGKILL');
      server = await RedisServerProcess.start(args);
    },
    async stop() {
      await server.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
