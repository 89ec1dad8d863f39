import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** PostgreSQL's ReadyForQuery message: 'Z', length 5, then the transaction status byte. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

/**
 * A TCP proxy in front of PostgreSQL that can lose one answer the way a network does: the next
 * request carrying a given text (a prepared statement's name, say) reaches the server, which runs
 * and commits it, but its answer never reaches the client — once the server has sent it up to
 * ReadyForQuery (the statement and its commit are done), both sides of the connection are closed.
 * Everything else is passed through untouched.
 */
export class AnswerDroppingProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private marker?: Buffer;
  private droppedAnswer?: () => void;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => this.relay(client));
  }

  /** Listens on a free loopback port in front of `target` (a PostgreSQL URL). */
  static async start(target: string): Promise<AnswerDroppingProxy> {
    const url = new URL(target);
    const proxy = new AnswerDroppingProxy(url.hostname, Number(url.port || 5432));
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    return proxy;
  }

  /** `target` with its host and port replaced by the proxy's. */
  urlFor(target: string): string {
    const url = new URL(target);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as { port: number }).port);
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

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }

  private relay(client: Socket): void {
    const server = connect(this.targetPort, this.targetHost);
    this.sockets.add(client).add(server);
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
