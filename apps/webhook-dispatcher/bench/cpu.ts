import { readdirSync, readFileSync } from 'node:fs';
import { queryDatabase } from '@availability/testing';

/**
 * CPU spent per process group during a phase, read from /proc (Linux only; elsewhere nothing is
 * reported). Divided by the deliveries of the phase it gives CPU milliseconds per delivery, which
 * the shared machine's noise moves much less than throughput.
 */
export type CpuGroups = Record<string, number>;

const TICKS_PER_SECOND = 100; // Linux USER_HZ

interface ProcessTicks {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  ticks: number;
}

interface Snapshot {
  busyTicks: number;
  stealTicks: number;
  processes: Map<number, ProcessTicks>;
}

function snapshot(): Snapshot | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const busyTicks = cpu.slice(0, 7).reduce((sum, value) => sum + value, 0) - cpu[3] - cpu[4];
    const processes = new Map<number, ProcessTicks>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        processes.set(Number(entry), { pid: Number(entry), ppid: Number(fields[1]), comm, cmdline, ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // exited meanwhile
      }
    }
    return { busyTicks, stealTicks: cpu[7] ?? 0, processes };
  } catch {
    return undefined;
  }
}

/**
 * Starts measuring; the returned function gives CPU milliseconds per group: `dispatcher`, `bench`
 * (publisher + receiver, this process), `postgres` (this database's backends and the shared
 * background processes), `redis`, `nats`, `other` (everything else on the machine: noise) and
 * `steal` (time the hypervisor gave to other machines).
 */
export function measureCpu(databaseUrl: string): () => Promise<CpuGroups | undefined> {
  const start = snapshot();
  return async () => {
    const end = snapshot();
    if (!start || !end) return undefined;
    const backends = await queryDatabase<{ pid: number; ours: boolean }>(
      databaseUrl,
      `SELECT pid, datname IS NULL OR datname = current_database() AS ours FROM pg_stat_activity`,
    ).catch(() => [] as Array<{ pid: number; ours: boolean }>);
    const ours = new Map(backends.map((b) => [b.pid, b.ours]));
    const groups: CpuGroups = {};
    for (const [pid, p] of end.processes) {
      const used = p.ticks - (start.processes.get(pid)?.ticks ?? 0);
      if (used <= 0) continue;
      let group = 'other';
      if (pid === process.pid) group = 'bench';
      else if (p.ppid === process.pid && p.cmdline.includes('webhook-dispatcher')) group = 'dispatcher';
      else if (p.comm.startsWith('postgres')) group = ours.get(pid) === false ? 'other' : 'postgres';
      else if (p.comm === 'redis-server') group = 'redis';
      else if (p.comm === 'nats-server') group = 'nats';
      groups[group] = (groups[group] ?? 0) + (used * 1000) / TICKS_PER_SECOND;
    }
    groups.steal = ((end.stealTicks - start.stealTicks) * 1000) / TICKS_PER_SECOND;
    return groups;
  };
}

/** `dispatcher 0.41, postgres 0.12, ...` in ms per delivery. */
export function perDelivery(groups: CpuGroups | undefined, deliveries: number): Record<string, number> | undefined {
  if (!groups || deliveries === 0) return undefined;
  const order = ['dispatcher', 'redis', 'postgres', 'nats', 'bench', 'other', 'steal'];
  return Object.fromEntries(order.filter((g) => g in groups).map((g) => [g, Math.round((groups[g] / deliveries) * 1000) / 1000]));
}
