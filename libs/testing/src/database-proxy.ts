import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** PostgreSQL's ReadyForQuery message: 'Z', length 5, then the transaction status byte. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

/**
 * A TCP proxy in front of the real PostgreSQL that fails the way networks and servers do, on cue:
 * - `dropAnswerTo(text)`: the next request carrying `text` (a prepared statement's name, say) reaches
 *   the server, which runs and commits it, but its answer never reaches the client: once the server
 *   has answered up to ReadyForQuery, both sides of the connection are closed;
 * - `goDown()`: every connection is closed and new ones are refused, as while the server restarts;
 *   `comeBack()` accepts them again on the same port;
 * - `partition()`: nothing gets through either way and nobody is told, as when the network between
 *   them fails (connections are still accepted, and what is sent waits); `heal()` lets it all through,
 *   late, as TCP would.
 * Everything else is passed through untouched.
 */
export class DatabaseProxy {
  private server: Server;
  private readonly sockets = new Set<Socket>();
  private marker?: Buffer;
  private partitioned = false;
  private droppedAnswer?: () => void;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private port: number,
  ) {
    this.server = this.listen();
  }

  /** Listens on a free loopback port in front of `target` (a PostgreSQL URL). */
  static async start(target: string): Promise<DatabaseProxy> {
    const url = new URL(target);
    const proxy = new DatabaseProxy(url.hostname, Number(url.port || 5432), 0);
    await once(proxy.server, 'listening');
    proxy.port = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  /** `target` with its host and port replaced by the proxy's. */
  urlFor(target: string): string {
    const url = new URL(target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /**
   * Loses the answer to the next request that carries `text`. Resolves once the server has answered
   * it in full and the connection has been cut.
   */
  dropAnswerTo(text: string): Promise<void> {
    this.marker = Buffer.from(text);
    return new Promise((resolve) => (this.droppedAnswer = resolve));
  }

  /** Closes every connection through the proxy and refuses new ones until `comeBack`. */
  async goDown(): Promise<void> {
    const closed = once(this.server, 'close');
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  async comeBack(): Promise<void> {
    this.server = this.listen();
    await once(this.server, 'listening');
  }

  /** Holds every byte in both directions, on the connections open now and on those made meanwhile. */
  partition(): void {
    this.partitioned = true;
    for (const socket of this.sockets) socket.pause();
  }

  heal(): void {
    this.partitioned = false;
    for (const socket of this.sockets) socket.resume();
  }

  async stop(): Promise<void> {
    if (this.server.listening) await this.goDown();
  }

  private listen(): Server {
    return createServer((client) => this.relay(client)).listen(this.port, '127.0.0.1');
  }

  private relay(client: Socket): void {
    const server = connect(this.targetPort, this.targetHost);
    this.sockets.add(client).add(server);
    if (this.partitioned) {
      client.pause();
      server.pause();
    }
    let swallowing: Buffer | undefined;
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    client.on('data', (chunk) => {
      if (this.marker && chunk.includes(this.marker)) {
        this.marker = undefined;
        swallowing = Buffer.alloc(0);
      }
      server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (!swallowing) {
        client.write(chunk);
        return;
      }
      swallowing = Buffer.concat([swallowing, chunk]);
      if (!swallowing.includes(READY_FOR_QUERY)) return;
      cut();
      this.droppedAnswer?.();
      this.droppedAnswer = undefined;
    });
    for (const socket of [client, server]) {
      socket.on('error', cut);
      socket.on('close', () => {
        this.sockets.delete(socket);
        cut();
      });
    }
  }
}
