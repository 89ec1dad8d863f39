import { readdirSync, readFileSync } from 'node:fs';
import { queryDatabase } from './test-database.js';

/**
 * Where the machine's CPU went during a benchmark phase, read from /proc (Linux; elsewhere nothing is
 * reported). On shared cores throughput is noisy; CPU time per operation moves much less, and steal
 * and other processes' time tell whether the machine was quiet.
 */
export interface CpuUsage {
  wallMs: number;
  /** Busy CPU milliseconds over the whole machine, including other people's work. */
  machineBusyMs: number;
  /** CPU milliseconds the hypervisor gave to other virtual machines meanwhile (steal): capacity we did not get. */
  stolenMs: number;
  /** CPU milliseconds (user + system) per group named by `Classify`. */
  groups: Record<string, number>;
  /** Of which in the kernel (system time), per group. */
  systemMs: Record<string, number>;
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Command name from /proc/<pid>/stat, e.g. `postgres`, `nats-server`. */
  comm: string;
  /** Arguments joined by spaces. */
  cmdline: string;
}

/** Names the group a process's CPU is billed to. */
export type Classify = (process: ProcessInfo) => string;

/**
 * The app a process runs as one of our services (`dist/apps/<app>/src/main.js`, as ServiceProcess
 * starts it), whoever its parent is: the worker processes of a service started with
 * SERVICE_PROCESSES > 1 run the same entry under their supervisor.
 */
export function serviceAppOf({ cmdline }: ProcessInfo): string | undefined {
  return /dist\/apps\/([^/]+)\/src\/main\.js/.exec(cmdline)?.[1];
}

const TICK_MS = 10; // Linux USER_HZ = 100

interface ProcessTicks {
  info: ProcessInfo;
  ticks: number;
  systemTicks: number;
}

interface Snapshot {
  at: number;
  busyTicks: number;
  stealTicks: number;
  processes: Map<number, ProcessTicks>;
}

/**
 * Starts measuring; the returned function stops and bills each process to a group. `classify` is
 * obtained after the final snapshot, so that preparing it (e.g. `otherDatabaseBackends`) is not billed.
 */
export function measureCpu(): (classify: () => Classify | Promise<Classify>) => Promise<CpuUsage | undefined> {
  const start = snapshot();
  return async (getClassify) => {
    const end = snapshot();
    if (!start || !end) return undefined;
    const classify = await getClassify();
    const groups: Record<string, number> = {};
    const systemMs: Record<string, number> = {};
    for (const [pid, { info, ticks, systemTicks }] of end.processes) {
      const before = start.processes.get(pid);
      const used = ticks - (before?.ticks ?? 0);
      if (used <= 0) continue;
      const group = classify(info);
      groups[group] = (groups[group] ?? 0) + used * TICK_MS;
      systemMs[group] = (systemMs[group] ?? 0) + (systemTicks - (before?.systemTicks ?? 0)) * TICK_MS;
    }
    return {
      wallMs: end.at - start.at,
      machineBusyMs: (end.busyTicks - start.busyTicks) * TICK_MS,
      stolenMs: (end.stealTicks - start.stealTicks) * TICK_MS,
      groups,
      systemMs,
    };
  };
}

/**
 * PIDs of the PostgreSQL backends serving other databases than `databaseUrl`'s (someone else's tests),
 * so that a benchmark need not bill them as its own. Background processes (no database) serve
 * everyone and are not listed.
 */
export async function otherDatabaseBackends(databaseUrl: string): Promise<Set<number>> {
  const rows = await queryDatabase<{ pid: number }>(databaseUrl, `SELECT pid FROM pg_stat_activity WHERE datname <> current_database()`);
  return new Set(rows.map((row) => row.pid));
}

function snapshot(): Snapshot | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal ...
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const busyTicks = cpu.slice(0, 7).reduce((sum, value) => sum + value, 0) - cpu[3] - cpu[4];
    const processes = new Map<number, ProcessTicks>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const read = readProcess(Number(entry));
      if (read) processes.set(read.info.pid, read);
    }
    return { at: performance.now(), busyTicks, stealTicks: cpu[7] ?? 0, processes };
  } catch {
    return undefined;
  }
}

function readProcess(pid: number): ProcessTicks | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces; fields after it are space-separated.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    const systemTicks = Number(fields[12]);
    return { info: { pid, ppid: Number(fields[1]), comm, cmdline }, ticks: Number(fields[11]) + systemTicks, systemTicks };
  } catch {
    return undefined; // exited meanwhile
  }
}

/**
 * Bills a benchmark's processes: each of our services by its app name (`offers-api`, …), `postgres`
 * (this database's backends and the server's own processes), `redis`, `nats` (the nats-server this
 * process started), `bench` (this process: load and receivers) and `other` (everything else on the
 * machine, including other databases' backends).
 */
export async function classifyBenchProcesses(databaseUrl: string): Promise<Classify> {
  // Without the list, every backend counts as ours: better than no figures.
  const others = await otherDatabaseBackends(databaseUrl).catch(() => new Set<number>());
  return (info) => {
    const { pid, ppid, comm } = info;
    if (pid === process.pid) return 'bench';
    const app = serviceAppOf(info);
    if (app) return app;
    if (comm.startsWith('postgres')) return others.has(pid) ? 'other' : 'postgres';
    if (comm === 'redis-server') return 'redis';
    if (comm === 'nats-server') return ppid === process.pid ? 'nats' : 'other';
    return 'other';
  };
}

/** CPU milliseconds per operation by group, rounded to µs, steal included; groups in `order` first. */
export function cpuPerOperation(usage: CpuUsage | undefined, operations: number, order: string[] = []): Record<string, number> | undefined {
  if (!usage || operations === 0) return undefined;
  const groups: Record<string, number> = { ...usage.groups, steal: usage.stolenMs };
  const names = [...order.filter((name) => name in groups), ...Object.keys(groups).filter((name) => !order.includes(name)).sort()];
  return Object.fromEntries(names.map((name) => [name, Math.round((groups[name] / operations) * 1000) / 1000]));
}
