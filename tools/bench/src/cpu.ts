import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { queryDatabase } from '@availability/testing';

/**
 * Where the machine's CPU went during a phase, read from /proc (Linux; elsewhere nothing is reported).
 * On 2 shared cores this says which process is the bottleneck, and whether something outside the
 * benchmark (another build or test run) was eating into the figures.
 */
export interface CpuUsage {
  /** Busy cores over the whole machine, 0..cores. */
  machineBusy: number;
  /** Cores the hypervisor gave to other virtual machines meanwhile (steal time): noise we cannot see. */
  stolen: number;
  /** Cores used per group of processes (see `Classify`). */
  groups: Record<string, number>;
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

/** Names the group a process's CPU is billed to. */
export type Classify = (process: ProcessInfo) => string;

const TICKS_PER_SECOND = 100; // Linux USER_HZ

interface Snapshot {
  at: number;
  busyTicks: number;
  stealTicks: number;
  processes: Map<number, { info: ProcessInfo; ticks: number }>;
}

/** Starts measuring; the returned function stops and bills each process with `classify` (called then). */
export function measureCpu(): (classify: Classify) => CpuUsage | undefined {
  const start = snapshot();
  return (classify) => {
    const end = snapshot();
    if (!start || !end) return undefined;
    const seconds = (end.at - start.at) / 1000;
    const groups: Record<string, number> = {};
    for (const [pid, { info, ticks }] of end.processes) {
      const used = ticks - (start.processes.get(pid)?.ticks ?? 0);
      if (used <= 0) continue;
      const group = classify(info);
      groups[group] = (groups[group] ?? 0) + used / TICKS_PER_SECOND / seconds;
    }
    const cores = (ticks: number) => Math.min(cpus().length, ticks / TICKS_PER_SECOND / seconds);
    return { machineBusy: cores(end.busyTicks - start.busyTicks), stolen: cores(end.stealTicks - start.stealTicks), groups };
  };
}

function snapshot(): Snapshot | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal ...
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const busyTicks = cpu.slice(0, 7).reduce((sum, value) => sum + value, 0) - cpu[3] - cpu[4];
    const processes = new Map<number, { info: ProcessInfo; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const read = readProcess(Number(entry));
      if (read) processes.set(read.info.pid, read);
    }
    return { at: Date.now(), busyTicks, stealTicks: cpu[7] ?? 0, processes };
  } catch {
    return undefined;
  }
}

function readProcess(pid: number): { info: ProcessInfo; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces; fields after it are space-separated.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return { info: { pid, ppid: Number(fields[1]), comm, cmdline }, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // exited meanwhile
  }
}

/**
 * Bills CPU to this process (the load generator), its children by app or script name, Postgres, NATS
 * and the kernel; Postgres backends and workers of other databases (someone else's tests) go to "other".
 */
export async function classifyProcesses(databaseUrl: string): Promise<Classify> {
  const backends = await queryDatabase<{ pid: number; ours: boolean }>(
    databaseUrl,
    // Background processes (no database) serve everyone; we count them as ours.
    `SELECT pid, datname IS NULL OR datname = current_database() AS ours FROM pg_stat_activity`,
  );
  const ours = new Map(backends.map((b) => [b.pid, b.ours]));
  return ({ pid, ppid, comm, cmdline }) => {
    if (pid === process.pid) return 'load generator';
    if (ppid === process.pid) return /dist\/apps\/([^/]+)\//.exec(cmdline)?.[1] ?? (cmdline.includes('baseline-server') ? 'bare server' : 'other');
    if (comm.startsWith('postgres')) return ours.get(pid) === false ? 'other' : 'postgres';
    if (comm === 'nats-server') return 'nats';
    if (ppid === 2 || pid === 2) return 'kernel';
    return 'other';
  };
}
