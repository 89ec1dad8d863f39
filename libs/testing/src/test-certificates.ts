import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A server's key and certificate (PEM text), as `https.createServer` takes them. */
export interface TestServerCertificate {
  key: string;
  cert: string;
}

/**
 * A server's certificate and key written into `dir` as `<name>.pem` and `<name>.key`, for a server
 * that reads them from files; the key readable by its owner only (servers refuse it otherwise).
 */
export async function writeCertificateFiles(dir: string, name: string, certificate: TestServerCertificate): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  await Promise.all([writeFile(certFile, certificate.cert), writeFile(keyFile, certificate.key, { mode: 0o600 })]);
  // A file that existed keeps its mode through writeFile.
  await chmod(keyFile, 0o600);
  return { certFile, keyFile };
}

/**
 * Certificates made for one test run: no key is ever committed. `localhost` is what a server on
 * this machine should present; the others each break one rule a client must check.
 */
export interface TestCertificates {
  /** The temporary directory holding the files. */
  dir: string;
  /** The test CA's certificate (PEM) and its file, e.g. for OUTBOUND_CA_FILE. */
  caCert: string;
  caFile: string;
  /** For `localhost`, 127.0.0.1 and ::1, signed by the test CA. */
  localhost: TestServerCertificate;
  /**
   * For the same names, and usable as a client's certificate too: what each end of a mutual TLS
   * connection presents, such as the routes between the nodes of a NATS cluster.
   */
  peer: TestServerCertificate;
  /** For `localhost` too, signed by the test CA, but its validity ended yesterday. */
  expired: TestServerCertificate;
  /** Signed by the test CA for `other.example` only: wrong for `localhost`. */
  otherName: TestServerCertificate;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** Makes a test CA and server certificates with the `openssl` CLI (EC P-256: quick to make). */
export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'test-certificates-'));
  const file = (name: string) => join(dir, name);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

  await run('openssl', ['req', '-x509', ...newKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=Availability Platform Test CA']);

  const serverCertificate = async (name: string, subjectAltName: string, days: number, usage = 'serverAuth'): Promise<TestServerCertificate> => {
    await writeFile(
      file(`${name}.ext`),
      `subjectAltName=${subjectAltName}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=${usage}\n`,
    );
    await run('openssl', ['req', ...newKey, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${name}`]);
    await run('openssl', [
      'x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
      '-days', String(days), '-extfile', file(`${name}.ext`), '-out', file(`${name}.pem`),
    ]); // prettier-ignore
    return { key: await readFile(file(`${name}.key`), 'utf8'), cert: await readFile(file(`${name}.pem`), 'utf8') };
  };

  const localhost = await serverCertificate('localhost', 'DNS:localhost,IP:127.0.0.1,IP:::1', 2);
  const peer = await serverCertificate('peer', 'DNS:localhost,IP:127.0.0.1,IP:::1', 2, 'serverAuth,clientAuth');
  // `-days -1` ends the validity a day before it starts: expired from the moment it is made.
  const expired = await serverCertificate('expired', 'DNS:localhost,IP:127.0.0.1,IP:::1', -1);
  const otherName = await serverCertificate('other.example', 'DNS:other.example', 2);
  return {
    dir,
    caCert: await readFile(file('ca.pem'), 'utf8'),
    caFile: file('ca.pem'),
    localhost,
    peer,
    expired,
    otherName,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
