import { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/** The request body exactly as received: signatures cover these bytes, never re-serialised JSON. */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return (request as FastifyRequest & { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
}

/**
 * Keeps a copy of every request body's raw bytes on `request.rawBody` before any parser sees it,
 * and hands the parsers an identical stream. Works with whatever parsers the app has (Nest's JSON
 * parser included), which is why it is a `preParsing` hook rather than a content-type parser.
 */
export function captureRawBodies(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.addHook('preParsing', async (request, _reply, payload) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload) {
      size += (chunk as Buffer).length;
      // Fastify's own error, so the problem filter answers it as every service does: payload-too-large.
      if (size > bodyLimit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    (request as FastifyRequest & { rawBody?: Buffer }).rawBody = raw;
    const copy = Readable.from([raw]) as Readable & { receivedEncodedLength?: number };
    copy.receivedEncodedLength = raw.length;
    return copy;
  });
}
