import pg from 'pg';

const READ_TIMEOUT = /^Query read timeout/;

/**
 * The PostgreSQL client every service's pool makes. Two things the driver leaves to its user:
 *
 * - A statement that times out (`query_timeout`) closes its connection. The driver only stops
 *   waiting: the statement may still reach the server late (a partition holds the bytes, then
 *   delivers them), and a ROLLBACK queued behind it is dropped by its own timeout. Reused, such a
 *   connection would run the next caller's statements inside a transaction nobody commits, so a write
 *   it acknowledged would vanish. Closed, the pool drops it and the server rolls back what arrived.
 * - A connection lost while it is checked out between statements (the outbox relay holds one while it
 *   publishes) is emitted as an `error` event that nobody may be listening to, and an unheard `error`
 *   ends the process. The loss reaches whoever uses the connection next as that statement's failure,
 *   and the pool drops it on release, so the event itself is only heard here.
 */
export class PooledClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

  override query(...args: unknown[]): never {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (error: unknown, ...rest: unknown[]) => void;
      args[last] = (error: unknown, ...rest: unknown[]) => {
        this.closeAfterTimeout(error);
        callback(error, ...rest);
      };
    }
    const result = (super.query as (...queryArgs: unknown[]) => unknown)(...args);
    if (result instanceof Promise) result.catch((error: unknown) => this.closeAfterTimeout(error));
    return result as never;
  }

  private closeAfterTimeout(error: unknown): void {
    if (error instanceof Error && READ_TIMEOUT.test(error.message)) (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}
