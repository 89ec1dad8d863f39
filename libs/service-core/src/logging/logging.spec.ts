import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { type Options, pinoHttp } from 'pino-http';
import { ServiceConfig } from '../config/service.config.js';
import { traceRequests } from '../tracing/http-tracing.js';
import { loggerParams, logRequests } from './logging.js';

describe('logRequests', () => {
  const lines: Array<Record<string, unknown>> = [];
  let fastify: FastifyInstance;

  beforeAll(async () => {
    // The services' own logger, with the serializers pino-http installs.
    const options = loggerParams('svc', new ServiceConfig()).pinoHttp as Options;
    const { logger } = pinoHttp(options, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    fastify = Fastify();
    traceRequests(fastify);
    logRequests(fastify, logger);
    fastify.post('/offer', async () => {
      logger.warn('written while answering');
      return 'ok';
    });
    fastify.get('/offer/:id', async () => 'ok');
    fastify.get('/health/live', async () => 'ok');
    fastify.get('/broken', async (_request, reply) => reply.code(503).send('down'));
    await fastify.ready();
  });

  afterAll(() => fastify.close());

  it('writes one line per request with its id, method, URL, status and time, never its headers', async () => {
    lines.length = 0;
    await fastify.inject({ method: 'GET', url: '/offer/42?x=1', headers: { authorization: 'Bearer secret-value' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/offer/42?x=1' }, statusCode: 200 });
    expect(typeof (lines[0].req as { id: unknown }).id).toBe('string');
    expect(typeof lines[0].responseTime).toBe('number');
    expect(JSON.stringify(lines[0])).not.toContain('secret-value');
  });

  it('names the request, its method and URL, and its trace on every line written while it is answered', async () => {
    lines.length = 0;
    await fastify.inject({ method: 'POST', url: '/offer?draft=1', headers: { 'x-request-id': 'caller-id-1' } });
    const [inside, completed] = lines;
    expect(inside).toMatchObject({ msg: 'written while answering', req: { id: 'caller-id-1', method: 'POST', url: '/offer?draft=1' }, requestId: 'caller-id-1' });
    expect(inside.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(completed).toMatchObject({ msg: 'request completed', req: { id: 'caller-id-1' }, traceId: inside.traceId, statusCode: 200 });
  });

  it('leaves probes out and writes a 5xx at error level', async () => {
    lines.length = 0;
    await fastify.inject({ method: 'GET', url: '/health/live' });
    await fastify.inject({ method: 'GET', url: '/broken' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'request errored', statusCode: 503 });
  });
});
