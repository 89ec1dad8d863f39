import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time used per process group during one phase, read from /proc (Linux; elsewhere nothing is
 * reported). Throughput on 2 shared cores is noisy; CPU time per search moves much less, so it is the
 * figure to judge changes by.
 */
export interface CpuSample {
  /** CPU milliseconds (user + system) per group: contact-directory, bench (stubs + load), postgres, nats. */
  groups: Record<string, number>;
  /** Of which in the kernel (system time: mostly loopback TCP, which every call pays on both ends). */
  systemMs: Record<string, number>;
  /** Busy CPU milliseconds over the whole machine, including other people's work. */
  machineBusyMs: number;
  /** CPU milliseconds the hypervisor gave to other virtual machines meanwhile (steal): capacity we did not get. */
  stolenMs: number;
  wallMs: number;
}

const TICK_MS = 10; // Linux USER_HZ = 100

interface Snapshot {
  at: number;
  busyTicks: number;
  stealTicks: number;
  processes: Map<number, { group: string; ticks: number; systemTicks: number }>;
}

/** Starts measuring; the returned function stops and reports. */
export function measureCpu(): () => CpuSample | undefined {
  const start = snapshot();
  return () => {
    const end = snapshot();
    if (!start || !end) return undefined;
    const groups: Record<string, number> = {};
    const systemMs: Record<string, number> = {};
    for (const [pid, { group, ticks, systemTicks }] of end.processes) {
      const used = ticks - (start.processes.get(pid)?.ticks ?? 0);
      if (used <= 0) continue;
      groups[group] = (groups[group] ?? 0) + used * TICK_MS;
      systemMs[group] = (systemMs[group] ?? 0) + (systemTicks - (start.processes.get(pid)?.systemTicks ?? 0)) * TICK_MS;
    }
    return { groups, systemMs, machineBusyMs: (end.busyTicks - start.busyTicks) * TICK_MS, stolenMs: (end.stealTicks - start.stealTicks) * TICK_MS, wallMs: end.at - start.at };
  };
}

function snapshot(): Snapshot | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal ...
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const busyTicks = cpu.slice(0, 7).reduce((sum, value) => sum + value, 0) - cpu[3] - cpu[4];
    const processes = new Map<number, { group: string; ticks: number; systemTicks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const read = readProcess(Number(entry));
      if (read && read.group !== 'other') processes.set(Number(entry), read);
    }
    return { at: performance.now(), busyTicks, stealTicks: cpu[7] ?? 0, processes };
  } catch {
    return undefined;
  }
}

function readProcess(pid: number): { group: string; ticks: number; systemTicks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const systemTicks = Number(fields[12]);
    const ticks = Number(fields[11]) + systemTicks;
    let group = 'other';
    if (pid === process.pid) group = 'bench (stubs + load)';
    else if (ppid === process.pid) group = /dist\/apps\/([^/]+)\//.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'other';
    // Postgres and NATS serve everyone on this machine; billed whole, so they over-count when others are busy.
    else if (comm.startsWith('postgres')) group = 'postgres (all)';
    else if (comm === 'nats-server') group = 'nats (all)';
    return { group, ticks, systemTicks };
  } catch {
    return undefined; // exited meanwhile
  }
}
