import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { RedisServerProcess } from './redis-server-process.js';
import { eventually } from './service-process.js';
import { type TestCertificates, writeCertificateFiles } from './test-certificates.js';

export interface TestRedisSentinelsOptions {
  /** The primary's name in the Sentinels' configuration (REDIS_SENTINEL_MASTER). */
  masterName?: string;
  /** How long the primary must not answer before a Sentinel thinks it down. */
  downAfterMs?: number;
  failoverTimeoutMs?: number;
  /**
   * Servers and Sentinels take TLS connections only, with the certificates' `localhost` one, and
   * reach each other over TLS too; all of them are known as `localhost`, the name a client checks.
   */
  tls?: TestCertificates;
  /**
   * The servers' password (requirepass), which the Sentinels require too, as Bitnami's chart sets
   * them up with `auth.sentinel`.
   */
  password?: string;
}

/**
 * A Redis primary, one replica and three Sentinels watching them (quorum 2), each its own process on
 * a free loopback port with its own directory: what a service reaches through REDIS_SENTINELS, so a
 * test can take the primary away and watch the replica take over.
 *
 * Nothing is persisted (no AOF, no snapshots): the replica's copy is what survives a failover, and a
 * killed primary is never started again, so files on disk would prove nothing here and only cost the
 * machine fsyncs. The price is the one a real failover has too: a write the primary acknowledged but
 * had not yet sent to the replica is lost.
 */
export interface TestRedisSentinels {
  /** `host:port` of each Sentinel (`localhost` with TLS, else 127.0.0.1). */
  sentinels: string[];
  masterName: string;
  /** REDIS_SENTINELS and REDIS_SENTINEL_MASTER for a service. */
  env: Record<string, string>;
  /** `host:port` of the primary, as the first Sentinel that answers last announced it. */
  currentPrimary(): Promise<string>;
  /** Clients subscribed on the Sentinels, all of them together: each Redis client's failover detector is one on each. */
  failoverSubscribers(): Promise<number>;
  /**
   * From now until the primary is killed, the replica gets nothing more from it (the replica is
   * stopped with SIGSTOP and its link cut), so what the primary acknowledges meanwhile dies with it,
   * as when replication falls behind. Keep it to a few seconds: the Sentinels do not promote a replica
   * cut off from its primary for ten times `down-after-milliseconds`.
   */
  cutOffReplica(): Promise<void>;
  /**
   * Kills the current primary with SIGKILL (it is not started again), then lets a replica cut off
   * from it run again; returns the primary's `host:port`.
   */
  killPrimary(): Promise<string>;
  /**
   * A failover with the primary still up (SENTINEL FAILOVER, as for maintenance): the replica is
   * promoted, and the Sentinels make the old primary its replica some seconds later.
   */
  failover(): Promise<void>;
  /**
   * Resolves once every server still running besides the primary replicates it and has everything
   * the primary had written when this was called.
   */
  replicasInSync(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestRedisSentinels(options: TestRedisSentinelsOptions = {}): Promise<TestRedisSentinels> {
  const masterName = options.masterName ?? 'platform';
  const { tls, password } = options;
  // With TLS every process is known by the name its certificate carries.
  const hostname = tls ? 'localhost' : '127.0.0.1';
  const command = (address: string, name: string, ...args: string[]) => commandTo(address, { tls, password }, name, ...args);
  const dirs: string[] = [];
  const servers = new Map<string, RedisServerProcess>();
  const sentinelProcesses: RedisServerProcess[] = [];
  const sentinels: string[] = [];
  /** Replicas stopped by cutOffReplica. */
  const stopped = new Set<RedisServerProcess>();
  const directory = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ap-redis-sentinel-'));
    dirs.push(dir);
    return dir;
  };
  const stop = async () => {
    await Promise.all([...sentinelProcesses, ...servers.values()].map((server) => server.kill('SIGKILL')));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };

  try {
    let files: TlsFiles | undefined;
    if (tls) {
      const { certFile, keyFile } = await writeCertificateFiles(await directory(), 'server', tls.localhost);
      files = { cert: certFile, key: keyFile, ca: tls.caFile };
    }
    const startDataServer = async (port: number, replicaOf?: number) =>
      RedisServerProcess.start([
        // noeviction, as the services require of their Redis (they refuse any other policy at the start).
        ...['--dir', await directory(), '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
        // The replica's first sync starts at once instead of waiting 5 s for other replicas to join it.
        ...['--repl-diskless-sync-delay', '0'],
        ...(files
          ? [
              // TLS only; replication too, checked against the CA (any server may become a replica).
              ...['--bind', '127.0.0.1', '-::1', '--port', '0', '--tls-port', String(port), '--tls-replication', 'yes'],
              ...['--tls-cert-file', files.cert, '--tls-key-file', files.key, '--tls-ca-cert-file', files.ca, '--tls-auth-clients', 'no'],
              // The Sentinels learn a replica's address from what it announces.
              ...['--replica-announce-ip', hostname],
            ]
          : ['--bind', '127.0.0.1', '--port', String(port)]),
        ...(password ? ['--requirepass', password, '--masterauth', password] : []),
        ...(replicaOf === undefined ? [] : ['--replicaof', hostname, String(replicaOf)]),
      ]);
    const primaryPort = await freePort();
    const primary = `${hostname}:${primaryPort}`;
    servers.set(primary, await startDataServer(primaryPort));
    const replicaPort = await freePort();
    const replica = `${hostname}:${replicaPort}`;
    servers.set(replica, await startDataServer(replicaPort, primaryPort));

    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const dir = await directory();
      // A Sentinel rewrites its configuration file as it learns (peers, replicas, epochs), so each has its own.
      const configFile = join(dir, 'sentinel.conf');
      await writeFile(
        configFile,
        [
          ...(files
            ? [
                'bind 127.0.0.1 -::1',
                'port 0',
                `tls-port ${port}`,
                `tls-cert-file "${files.cert}"`,
                `tls-key-file "${files.key}"`,
                `tls-ca-cert-file "${files.ca}"`,
                'tls-auth-clients no',
                // To the servers and the other Sentinels over TLS as well.
                'tls-replication yes',
                // Servers and Sentinels named, not numbered: `resolve-hostnames` before the monitor line.
                'sentinel resolve-hostnames yes',
                'sentinel announce-hostnames yes',
                `sentinel announce-ip ${hostname}`,
              ]
            : ['bind 127.0.0.1', `port ${port}`]),
          ...(password ? [`requirepass "${password}"`] : []),
          `dir "${dir}"`,
          `sentinel monitor ${masterName} ${hostname} ${primaryPort} 2`,
          ...(password ? [`sentinel auth-pass ${masterName} "${password}"`] : []),
          `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 1_000}`,
          `sentinel failover-timeout ${masterName} ${options.failoverTimeoutMs ?? 3_000}`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      sentinelProcesses.push(await RedisServerProcess.start([configFile, '--sentinel'], { readyWhen: /\+monitor master/ }));
      sentinels.push(`${hostname}:${port}`);
    }

    // A failover needs the replica in sync and every Sentinel knowing the replica and the other two.
    await eventually(async () => info(await command(replica, 'INFO', 'replication')).master_link_status === 'up', 30_000, 'the replica in sync');
    for (const sentinel of sentinels) {
      await eventually(
        async () => {
          const master = pairs(await command(sentinel, 'SENTINEL', 'MASTER', masterName));
          return master['num-slaves'] === '1' && master['num-other-sentinels'] === '2';
        },
        30_000,
        `Sentinel ${sentinel} knowing the replica and the other Sentinels`,
      );
    }
  } catch (error) {
    const logs = sentinelProcesses.map((sentinel, i) => `Sentinel ${i + 1}:\n${sentinel.logs().slice(-2_000)}`).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }

  const currentPrimary = async () => {
    let lastError: unknown;
    for (const sentinel of sentinels) {
      try {
        // SENTINEL MASTER's address changes when the Sentinel announces the switch (+switch-master), which is
        // when clients move; GET-MASTER-ADDR-BY-NAME names the promoted replica up to a tick earlier, while
        // clients still write to the old primary.
        const fields = (await command(sentinel, 'SENTINEL', 'MASTER', masterName)) as string[];
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        return `${field('ip')}:${field('port')}`;
      } catch (error) {
        lastError = error;
      }
    }
    throw new Error(`no Sentinel answered: ${(lastError as Error).message}`);
  };

  return {
    sentinels,
    masterName,
    env: { REDIS_SENTINELS: sentinels.join(','), REDIS_SENTINEL_MASTER: masterName },
    currentPrimary,
    async failoverSubscribers() {
      let count = 0;
      for (const sentinel of sentinels) count += String(await command(sentinel, 'CLIENT', 'LIST')).split('\n').filter((line) => /\bsub=[1-9]/.test(line)).length;
      return count;
    },
    async cutOffReplica() {
      const primary = await currentPrimary();
      for (const [address, server] of servers) {
        if (address === primary || stopped.has(server)) continue;
        server.signal('SIGSTOP');
        stopped.add(server);
      }
      // What is already in a stopped replica's socket still reaches it when it runs again; nothing after this.
      await command(primary, 'CLIENT', 'KILL', 'TYPE', 'replica');
    },
    async killPrimary() {
      const primary = await currentPrimary();
      const server = servers.get(primary);
      if (!server) throw new Error(`the Sentinels name ${primary}, which is not one of this harness's servers`);
      await server.kill('SIGKILL');
      servers.delete(primary);
      for (const replica of stopped) replica.signal('SIGCONT');
      stopped.clear();
      return primary;
    },
    async failover() {
      const reply = await command(sentinels[0], 'SENTINEL', 'FAILOVER', masterName);
      if (reply !== 'OK') throw new Error(`SENTINEL FAILOVER answered ${String(reply)}`);
    },
    async replicasInSync(timeoutMs = 30_000) {
      const primary = await currentPrimary();
      const [host, port] = [primary.slice(0, primary.lastIndexOf(':')), primary.slice(primary.lastIndexOf(':') + 1)];
      const written = Number(info(await command(primary, 'INFO', 'replication')).master_repl_offset);
      for (const replica of [...servers.keys()].filter((address) => address !== primary)) {
        await eventually(
          async () => {
            const state = info(await command(replica, 'INFO', 'replication'));
            return state.role === 'slave' && state.master_host === host && state.master_port === port && state.master_link_status === 'up' && Number(state.slave_repl_offset) >= written;
          },
          timeoutMs,
          `${replica} replicating ${primary} and in sync`,
        );
      }
    },
    stop,
  };
}

interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
}

/** One command to a server or Sentinel at `host:port`, on a connection of its own that does not retry. */
async function commandTo(address: string, { tls, password }: Pick<TestRedisSentinelsOptions, 'tls' | 'password'>, name: string, ...args: string[]): Promise<unknown> {
  const separator = address.lastIndexOf(':');
  const client = new Redis({
    host: address.slice(0, separator),
    port: Number(address.slice(separator + 1)),
    ...(tls ? { tls: { ca: tls.caCert } } : {}),
    password,
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(name, ...args);
  } finally {
    client.disconnect();
  }
}

/** An INFO reply's `field:value` lines as an object. */
function info(reply: unknown): Record<string, string> {
  return Object.fromEntries(
    String(reply)
      .split('\r\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

/** A Sentinel's `[field, value, field, value, …]` reply as an object. */
function pairs(reply: unknown): Record<string, string> {
  const list = reply as string[];
  const result: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) result[list[i]] = list[i + 1];
  return result;
}
