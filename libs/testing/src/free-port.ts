import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports are handed out from outside the kernel's ephemeral range: a port from inside it can be
 * given to any outgoing connection (a client of PostgreSQL, of NATS) between the moment it is
 * handed out and the moment the server under test binds it.
 */
const LOWEST = 20_000;
const handedOut = new Set<number>();
const range = portRange();
let cursor = range.from + Math.floor(Math.random() * (range.to - range.from + 1));

/** A free TCP port on loopback, for a service or server under test; never the same one twice per process. */
export async function freePort(): Promise<number> {
  const size = range.to - range.from + 1;
  for (let tried = 0; tried < size; tried++) {
    const port = cursor;
    cursor = cursor === range.to ? range.from : cursor + 1;
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port left in ${range.from}-${range.to}`);
}

/** The larger gap beside the ephemeral range (Linux's default range when it cannot be read). */
function portRange(): { from: number; to: number } {
  let [low, high] = [32_768, 60_999];
  try {
    [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    // not Linux: keep the default
  }
  const below = { from: LOWEST, to: low - 1 };
  const above = { from: high + 1, to: 65_535 };
  const sizeOf = (gap: { from: number; to: number }) => gap.to - gap.from + 1;
  const gap = sizeOf(below) >= sizeOf(above) ? below : above;
  if (sizeOf(gap) < 1_000) throw new Error(`the ephemeral port range ${low}-${high} leaves no room for test servers`);
  return gap;
}

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await once(server, 'listening');
  } catch {
    return false; // in use, by this machine's services or another test process
  }
  server.close();
  await once(server, 'close');
  return true;
}
