import { ServerProcess } from './server-process.js';

/** The machine's redis-server (`REDIS_SERVER_BIN` to use another). */
export const redisServerBinary = (): string => process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** One redis-server process of a test: a data server or, with `--sentinel`, a Sentinel. */
export type RedisServerProcess = ServerProcess;

export const RedisServerProcess = {
  /** `readyWhen`: the log line that says it serves (data servers and Sentinels print different ones). */
  start(args: string[], { readyWhen = /Ready to accept connections/ } = {}): Promise<RedisServerProcess> {
    return ServerProcess.start({
      name: 'redis-server',
      binary: redisServerBinary(),
      args,
      installHint: 'install redis-server, or set REDIS_SERVER_BIN',
      readyWhen,
    });
  },
};
