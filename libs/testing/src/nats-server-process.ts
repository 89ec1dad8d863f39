import { ServerProcess } from './server-process.js';

/** The machine's nats-server (`NATS_SERVER_BIN` to use another). */
export const natsServerBinary = (): string => process.env.NATS_SERVER_BIN ?? 'nats-server';

/**
 * A nats-server run from a config file as a child process, for the test harness and the dev
 * launcher: started and waited for until it is ready, its log kept, and its refusals picked out.
 */
export class NatsServerProcess {
  private constructor(
    private readonly server: ServerProcess,
    private readonly refused: string[],
  ) {}

  /**
   * `ownProcessGroup`: Ctrl-C in a terminal does not reach the server, so a launcher can stop its
   * services first (they drain their connections) and the server last.
   */
  static async start(configFile: string, { ownProcessGroup = false } = {}): Promise<NatsServerProcess> {
    const refused: string[] = [];
    const server = await ServerProcess.start({
      name: 'nats-server',
      binary: natsServerBinary(),
      args: ['-c', configFile],
      installHint: 'install nats-server 2.9 or later, or set NATS_SERVER_BIN',
      readyWhen: /Server is ready/,
      detached: ownProcessGroup,
      onLog: (text) => refused.push(...text.split('\n').filter((line) => /Violation|authentication error|Authorization Error/i.test(line))),
    });
    return new NatsServerProcess(server, refused);
  }

  /** Log lines about refused publishes, subscriptions and logins, so far. */
  violations(): string[] {
    return [...this.refused];
  }

  logs(): string {
    return this.server.logs();
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
  }

  /** Sends `signal` (a crash with SIGKILL: nothing flushed, no goodbye to the cluster) and waits for the exit. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    return this.server.kill(signal);
  }
}
