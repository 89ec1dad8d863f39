/**
 * SQLSTATEs that say the server cannot serve now, whatever the statement: connection exceptions (class
 * 08), shutting down or starting up (57P01–57P03), out of connections (53300), and a read-only standby
 * where the primary was (25006, in the middle of a failover).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|25006)$/;

/** What a socket says when the server is down, restarting or out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * What a TLS handshake says when the server's certificate cannot be trusted (expired, another host's,
 * an unknown CA) or the handshake failed: the database cannot be reached safely, so it is not reached.
 */
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|HOSTNAME_MISMATCH)/;

/** The PostgreSQL client's own words for a connection lost, never made, or an answer waited for too long (pg, pg-pool). */
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
  /^Client was closed/,
  /^Query read timeout/,
  /^Cannot use a pool after calling end/,
];

/** The PostgreSQL client's words for a server that does not speak TLS, when TLS was asked for. */
const NO_TLS_MESSAGE = /^The server does not support SSL connections/;

/**
 * Whether `error` says the database could not be reached or could not serve, rather than that the
 * statement was wrong: a request that met it may succeed when repeated in a moment (HTTP 503).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyCause(error, (code, message) => UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code) || untrusted(code, message) || CLIENT_MESSAGES.some((pattern) => pattern.test(message)));
}

/**
 * Whether `error` says the server's certificate could not be trusted or TLS could not be agreed:
 * unavailable too, but a mistake of configuration that waiting will not mend.
 */
export function isUntrustedDatabase(error: unknown): boolean {
  return anyCause(error, untrusted);
}

function untrusted(code: string, message: string): boolean {
  return TLS_CODES.test(code) || NO_TLS_MESSAGE.test(message);
}

/** Looks through TypeORM's QueryFailedError (`driverError`) and an error's `cause`. */
function anyCause(error: unknown, says: (code: string, message: string) => boolean): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (says(typeof code === 'string' ? code : '', typeof message === 'string' ? message : '')) return true;
    const next = current as { driverError?: unknown; cause?: unknown };
    current = next.driverError ?? next.cause;
  }
  return false;
}
