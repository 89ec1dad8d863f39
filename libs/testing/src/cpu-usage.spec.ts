import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { measureCpu, serviceAppOf } from './cpu-usage.js';

// /proc exists on Linux only; elsewhere measureCpu reports nothing.
const onLinux = existsSync('/proc/stat') ? it : it.skip;

describe('measureCpu', () => {
  onLinux('bills the CPU a process spent during the phase to the group its classifier names', async () => {
    const stop = measureCpu();
    const until = performance.now() + 300;
    while (performance.now() < until); // spin: CPU time this process must be billed for
    const usage = await stop(() => ({ pid }) => (pid === process.pid ? 'self' : 'rest'));

    expect(usage).toBeDefined();
    expect(usage?.groups.self).toBeGreaterThanOrEqual(150);
    expect(usage?.systemMs.self).toBeLessThanOrEqual(usage?.groups.self ?? 0);
    // Whole-machine and per-process ticks are sampled apart: allow a couple of ticks between them.
    expect((usage?.machineBusyMs ?? 0) + 20).toBeGreaterThanOrEqual(usage?.groups.self ?? 0);
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
