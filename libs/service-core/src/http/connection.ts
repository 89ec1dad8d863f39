import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails, problemType, titleFor } from './problem.js';

/**
 * A rejected upload (413, malformed JSON…) is read and thrown away up to this many bytes, so that the
 * client, still sending, gets to read the answer. Answering while its bytes are arriving would let the
 * connection close under the client's feet (it closes after the answer when the client asked with
 * `Connection: close`, and unread bytes make the kernel reset it): it would see EPIPE or ECONNRESET
 * instead of the 413.
 */
export const DRAIN_REJECTED_UPLOAD_BYTES = 32 * 1024 * 1024;
/** …and for at most this long; a client trickling its upload is cut off. */
export const DRAIN_REJECTED_UPLOAD_MS = 10_000;
/**
 * The answer waits for the rest of the upload only while it keeps arriving: a client that announced
 * a body and stopped sending (nothing of it unread, so nothing to reset) is answered after this pause.
 */
export const DRAIN_PAUSE_MS = 1_000;

/**
 * Awaited as a reply goes out before the request's body was read to its end (Fastify rejected it
 * while or before reading it). If the rest is not absurdly large it is read and discarded, bounded in
 * bytes and time, and the answer goes out once it has all arrived or stopped arriving; the connection
 * stays open for the client's next request. Otherwise the answer says the connection closes.
 */
export async function drainUnreadUpload(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw: IncomingMessage = request.raw;
  if (raw.complete || raw.destroyed) return;
  const announced = Number(raw.headers['content-length'] ?? 0);
  if (!(announced <= DRAIN_REJECTED_UPLOAD_BYTES)) {
    void reply.header('connection', 'close');
    return;
  }
  // Fastify asks for `Connection: close` after a body error; once the upload is read there is no need.
  reply.removeHeader('connection');
  await new Promise<void>((answer) => {
    let drained = 0;
    let pause = setTimeout(answer, DRAIN_PAUSE_MS).unref();
    const finish = () => {
      clearTimeout(pause);
      clearTimeout(timer);
      raw.off('data', onData);
      answer();
    };
    const cutOff = () => {
      finish();
      raw.socket.destroy();
    };
    const timer = setTimeout(cutOff, DRAIN_REJECTED_UPLOAD_MS).unref();
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_REJECTED_UPLOAD_BYTES) return cutOff();
      clearTimeout(pause);
      pause = setTimeout(answer, DRAIN_PAUSE_MS).unref();
    };
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.resume();
  });
}

/** How long a connection whose request Node could not parse lingers after the answer. */
const CLIENT_ERROR_LINGER_MS = 1000;

/** What Node's HTTP parser rejects before any request exists (Fastify's `clientErrorHandler`). */
const CLIENT_ERRORS: Record<string, { status: number; slug: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, slug: 'headers-too-large', detail: 'The request line and headers together are larger than 16 KiB.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, slug: 'request-timeout', detail: 'The request was not received in time.' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { status: 400, slug: 'bad-request', detail: 'Content-Length is given twice or together with Transfer-Encoding.' },
  HPE_INVALID_CONTENT_LENGTH: { status: 400, slug: 'bad-request', detail: 'Content-Length must be one whole number.' },
  HPE_INVALID_TRANSFER_ENCODING: { status: 400, slug: 'bad-request', detail: 'Transfer-Encoding is not valid.' },
  HPE_INVALID_HEADER_TOKEN: { status: 400, slug: 'bad-request', detail: 'A header name or value holds characters HTTP does not allow.' },
};

/** The problem Node's parser error earns; anything unlisted is a plain 400. */
export function clientErrorProblem(error: { code?: string }): ProblemDetails {
  const known = (error.code && CLIENT_ERRORS[error.code]) || { status: 400, slug: 'bad-request', detail: 'The request is not valid HTTP/1.1.' };
  return { type: problemType(known.slug), title: titleFor(known.status), status: known.status, detail: known.detail };
}

/**
 * Answers a request Node could not parse with a problem+json, then closes the connection (there is
 * no telling where the next request would start). Replaces Fastify's default, which answers plain JSON.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const problem = clientErrorProblem(error);
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  // Not destroyed at once: unread bytes would make the kernel reset the connection, and the client
  // could lose the answer. Whatever it still sends is dropped for a moment, then the socket goes.
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}
