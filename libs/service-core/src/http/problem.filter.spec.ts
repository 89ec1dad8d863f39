import { describe, expect, it } from '@jest/globals';
import { BadRequestException, NotFoundException } from '@nestjs/common';
import { toProblem } from './problem.filter.js';
import { ProblemException } from './problem.js';

describe('toProblem', () => {
  it('passes a ProblemException through with its headers', () => {
    const { problem, headers } = toProblem(ProblemException.unauthorized('no key'));
    expect(problem).toEqual({ type: expect.stringContaining('unauthorized'), title: 'Unauthorized', status: 401, detail: 'no key' });
    expect(headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('maps Fastify body errors, also when Nest wraps them', () => {
    expect(toProblem({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).problem.status).toBe(413);
    const wrapped = new BadRequestException('bad', { cause: { code: 'FST_ERR_CTP_INVALID_JSON_BODY' } });
    expect(toProblem(wrapped).problem.type).toContain('malformed-json');
  });

  it('turns unknown routes into a 404 problem and anything unexpected into a bare 500', () => {
    expect(toProblem(new NotFoundException('Cannot GET /x')).problem).toMatchObject({ status: 404, detail: 'No such resource.' });
    const { problem } = toProblem(new Error('connection string postgres://user:pw@host'));
    expect(problem.status).toBe(500);
    expect(problem.detail).not.toContain('postgres');
  });

  it('answers 503 with Retry-After when the database could not be reached, and says no more', () => {
    const { problem, headers } = toProblem(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }));
    expect(problem).toEqual({ type: expect.stringContaining('database-unavailable'), title: 'Service Unavailable', status: 503, detail: 'The database could not be reached; retry shortly.' });
    expect(headers).toEqual({ 'retry-after': '1' });
  });
});
