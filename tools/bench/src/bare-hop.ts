import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort, measureCpu } from '@availability/testing';
import { paced } from './paced.js';
import { SteadyClient } from './steady-client.js';

/** The least an HTTP service can do: read the body, answer 200. Runs as its own process, as our services do. */
const BARE_SERVER = `
const http = require('node:http');
http.createServer((request, response) => {
  request.resume();
  request.on('end', () => response.end('ok'));
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
`;

export interface HopCost {
  rate: number;
  /** CPU milliseconds per request: the bare server's, and the calling process's (the benchmarks' SteadyClient). */
  serverMs: number;
  clientMs: number;
}

/**
 * What this machine charges for one HTTP hop at a steady rate: a bare node:http server in its own
 * process, called as the benchmarks call the platform (SteadyClient) at `rate` requests a second,
 * evenly spaced. On a 2-core VM a request arriving alone costs far more CPU than one in a stream
 * (waking a process, a core out of idle), so this is the yardstick for the platform's CPU per answer
 * at the same rate, which crosses about six such hops.
 */
export async function bareHopCost(rate: number, seconds: number, signal: AbortSignal): Promise<HopCost | undefined> {
  const port = await freePort();
  const server = spawn(process.execPath, ['-e', BARE_SERVER], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const client = new SteadyClient();
  try {
    await once(server, 'message');
    const url = `http://127.0.0.1:${port}/hook`;
    const call = () => client.call(url, 'POST', {}, '{"eventId":"x"}');
    for (let i = 0; i < rate; i += 1) await call(); // warm: connections, JIT
    const stop = measureCpu();
    const count = (await paced(rate, seconds, signal, call)).length;
    const usage = await stop(() => (info) => (info.pid === server.pid ? 'server' : info.pid === process.pid ? 'client' : 'other'));
    if (!usage) return undefined;
    const per = (group: string) => Math.round(((usage.groups[group] ?? 0) / count) * 1000) / 1000;
    return { rate, serverMs: per('server'), clientMs: per('client') };
  } finally {
    await client.close();
    server.kill();
  }
}
