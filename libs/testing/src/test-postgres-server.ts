import { execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { ServerProcess } from './server-process.js';
import { type TestServerCertificate, writeCertificateFiles } from './test-certificates.js';

const run = promisify(execFile);

/**
 * A private PostgreSQL server for one test suite, made with the machine's own `initdb` and `postgres`
 * on a free port: for what the shared server cannot be made to do, such as accepting TLS only or
 * restarting under the running platform.
 */
export interface TestPostgresServer {
  /** The `postgres` database as its superuser, by host name; with TLS, `sslmode=verify-full` and the CA given. */
  url: string;
  /**
   * A fast shutdown, as for a restart or an upgrade: the server ends every session with `57P01`
   * (terminating connection due to administrator command), in the middle of a statement too, and
   * refuses connections until `startAgain`.
   */
  shutDown(): Promise<void>;
  /** Starts on the same port and data. */
  startAgain(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestPostgresServerOptions {
  /** Accept TLS connections only (`hostssl`), with this certificate; `caFile` is the CA clients trust. */
  tls?: { certificate: TestServerCertificate; caFile: string };
  /** Every commit waits for the disk, as on a production server (benchmarks); by default tests skip the flushes. */
  durable?: boolean;
}

/**
 * A TLS server's URL as a service is given it: without `sslrootcert`, which services refuse, as they
 * are given the CA as DATABASE_CA_FILE (`serviceDatabaseUrl` of startTestPlatform).
 */
export function withoutRootCert(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('sslrootcert');
  return parsed.toString();
}

/** The directory of the server's programs: `POSTGRES_BIN_DIR`, else what `pg_config` says. */
async function postgresBinDir(): Promise<string> {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim();
  } catch {
    throw new Error('cannot find the PostgreSQL server programs: install postgresql, or set POSTGRES_BIN_DIR');
  }
}

/** PostgreSQL refuses to run as root: then it runs as the machine's `postgres` user. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

export async function startTestPostgresServer(options: TestPostgresServerOptions = {}): Promise<TestPostgresServer> {
  const bin = await postgresBinDir();
  const user = await serverUser();
  const dir = await mkdtemp(join(tmpdir(), 'ap-postgres-'));
  const data = join(dir, 'data');
  await mkdir(data, { mode: 0o700 });
  if (user) await chown(dir, user.uid, user.gid);
  if (user) await chown(data, user.uid, user.gid);
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions'], user ?? {});
    const settings = ['-c', `unix_socket_directories=${dir}`, '-c', 'listen_addresses=localhost'];
    if (!options.durable) settings.push('-c', 'fsync=off', '-c', 'full_page_writes=off');
    if (options.tls) settings.push(...(await tlsSettings(dir, data, options.tls.certificate, user)));
    const port = await freePort();
    const start = () =>
      ServerProcess.start({
        name: 'postgres',
        binary: join(bin, 'postgres'),
        args: ['-D', data, '-p', String(port), ...settings],
        installHint: 'install postgresql, or set POSTGRES_BIN_DIR',
        readyWhen: /database system is ready to accept connections/,
        user,
      });
    let server = await start();
    const url = new URL(`postgres://postgres@localhost:${port}/postgres`);
    if (options.tls) {
      url.searchParams.set('sslmode', 'verify-full');
      url.searchParams.set('sslrootcert', options.tls.caFile);
    }
    return {
      url: url.toString(),
      shutDown: () => server.kill('SIGINT'),
      async startAgain() {
        server = await start();
      },
      async stop() {
        await server.kill('SIGINT');
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** TLS on, with the certificate, and every TCP connection made without it refused, as `hostssl` rules do. */
async function tlsSettings(dir: string, data: string, certificate: TestServerCertificate, user?: { uid: number; gid: number }): Promise<string[]> {
  const { certFile, keyFile } = await writeCertificateFiles(dir, 'server', certificate);
  if (user) await Promise.all([chown(certFile, user.uid, user.gid), chown(keyFile, user.uid, user.gid)]);
  await writeFile(join(data, 'pg_hba.conf'), ['local all all trust', 'hostssl all all 127.0.0.1/32 trust', 'hostssl all all ::1/128 trust', ''].join('\n'));
  return ['-c', 'ssl=on', '-c', `ssl_cert_file=${certFile}`, '-c', `ssl_key_file=${keyFile}`];
}
