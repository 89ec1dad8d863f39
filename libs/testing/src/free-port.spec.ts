import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './free-port.js';

/** The kernel's range for outgoing connections' local ports (Linux's default when it cannot be read). */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return { low, high };
  } catch {
    return { low: 32_768, high: 60_999 };
  }
}

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

describe('freePort', () => {
  // A port from the ephemeral range can be taken by any outgoing connection (to PostgreSQL, to NATS)
  // between the moment it is handed out and the moment the server under test binds it.
  it('hands out ports an outgoing connection can never be given', async () => {
    const { low, high } = ephemeralRange();
    for (let i = 0; i < 50; i++) {
      const port = await freePort();
      expect(port < low || port > high).toBe(true);
      expect(port).toBeGreaterThanOrEqual(1024);
    }
  });

  it('never hands out the same port twice in one process, even before the first is bound', async () => {
    const ports = new Set<number>();
    for (let i = 0; i < 200; i++) ports.add(await freePort());
    expect(ports.size).toBe(200);
  });

  it('hands out ports that can be bound', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(await bindable(port)).toBe(true);
  });
});
