/**
 * SQLSTATEs that say the server cannot serve now, whatever the statement: connection exceptions (class
 * 08), shutting down or starting up (57P01–57P03), out of connections (53300), and a read-only standby
 * where the primary was (25006, in the middle of a failover).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|25006)$/;

/** What a socket says when the server is down, restarting or out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** The PostgreSQL client's own words for a connection lost, never made, or an answer waited for too long (pg, pg-pool). */
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
  /^Client was closed/,
  /^Query read timeout/,
  /^Cannot use a pool after calling end/,
];

/**
 * Whether `error` says the database could not be reached or could not serve, rather than that the
 * statement was wrong: a request that met it may succeed when repeated in a moment (HTTP 503). Looks
 * through TypeORM's QueryFailedError (`driverError`) and an error's `cause`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && CLIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
    const next = current as { driverError?: unknown; cause?: unknown };
    current = next.driverError ?? next.cause;
  }
  return false;
}
