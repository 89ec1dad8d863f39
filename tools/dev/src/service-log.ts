import { prettyFactory } from 'pino-pretty';

/**
 * How `npm start` shows its services' log lines: readable for a person on a terminal (time, level,
 * service, context, message; Nest's start-up listing of modules and routes left out), the services'
 * own JSON lines when its output goes elsewhere (a file, a collector). `LOG_FORMAT=pretty|json`
 * chooses either way.
 */
export type LogFormat = 'pretty' | 'json';

export function logFormat(env: Record<string, string | undefined>, isTerminal: boolean): LogFormat {
  if (env.LOG_FORMAT === 'pretty' || env.LOG_FORMAT === 'json') return env.LOG_FORMAT;
  return isTerminal ? 'pretty' : 'json';
}

/** Nest's line-per-module and line-per-route listing at start-up: noise to a person watching. */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Formats one line a service wrote; undefined drops it. Lines that are not pino JSON pass through, labelled. */
export function serviceLogLine(format: LogFormat, colorize = false): (app: string, line: string) => string | undefined {
  if (format === 'json') return (_app, line) => line;
  const pretty = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name,context,req,res,statusCode,responseTime',
    messageFormat: '{name}{if context} [{context}]{end}: {msg}{if statusCode}: {req.method} {req.url} {statusCode} in {responseTime} ms{end}',
    singleLine: true,
  });
  return (app, line) => {
    let entry: { context?: unknown; msg?: unknown } | undefined;
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed !== null && typeof parsed === 'object' && 'level' in parsed) entry = parsed as typeof entry;
    } catch {
      // not JSON: a line of its own, shown as written
    }
    if (!entry) return `[${app}] ${line}`;
    if (typeof entry.context === 'string' && START_UP_CONTEXTS.has(entry.context)) return undefined;
    return pretty(entry).trimEnd();
  };
}
