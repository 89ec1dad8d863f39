import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { measureCpu, serviceAppOf } from './cpu-usage.js';

// /proc exists on Linux only; elsewhere measureCpu reports nothing.
const onLinux = existsSync('/proc/stat') ? it : it.skip;

describe('measureCpu', () => {
  onLinux('bills the CPU a process spent during the phase to the group its classifier names', async () => {
    // Spin until this process has used 300 ms of CPU by its own clock: a wall-clock spin gets only
    // part of a core when the machine is busy (other test workers), and would bill less.
    const spent = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const beforeStart = spent();
    const stop = measureCpu();
    const from = spent();
    while (spent() - from < 300); // CPU time this process must be billed for
    const spun = spent() - from;
    const usage = await stop(() => ({ pid }) => (pid === process.pid ? 'self' : 'rest'));
    // Reading every process's /proc files for the two snapshots costs CPU of its own, more on a machine
    // running many processes: the bill may include it, up to what the process spent in all.
    const spentInAll = spent() - beforeStart;

    expect(usage).toBeDefined();
    // The kernel counts in 10 ms ticks, and a snapshot is read while the process keeps running.
    expect(usage?.groups.self).toBeGreaterThanOrEqual(spun - 30);
    expect(usage?.groups.self).toBeLessThanOrEqual(spentInAll + 30);
    expect(usage?.systemMs.self).toBeLessThanOrEqual(usage?.groups.self ?? 0);
    // Whole-machine and per-process ticks are sampled apart: allow a couple of ticks between them. In a
    // virtual machine a tick that finds the host running someone else is counted as steal, not busy,
    // while the process is still charged for the time it was runnable.
    expect((usage?.machineBusyMs ?? 0) + (usage?.stolenMs ?? 0) + 20).toBeGreaterThanOrEqual(usage?.groups.self ?? 0);
  });
});

describe('serviceAppOf', () => {
  const info = (cmdline: string) => ({ pid: 10, ppid: 1, comm: 'node', cmdline });
  it('names the service a process runs, whoever started it, and nothing for a benchmark or another script', () => {
    expect(serviceAppOf(info('/usr/bin/node /repo/dist/apps/webhook-dispatcher/src/main.js'))).toBe('webhook-dispatcher');
    expect(serviceAppOf(info('node dist/apps/contact-directory/src/main.js'))).toBe('contact-directory');
    expect(serviceAppOf(info('node dist/apps/contact-directory/bench/main.js'))).toBeUndefined();
    expect(serviceAppOf(info('node dist/tools/bench/src/baseline-server.js'))).toBeUndefined();
  });
});
