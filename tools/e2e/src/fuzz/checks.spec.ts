import { describe, expect, it } from '@jest/globals';
import { answerViolations, apiVersionViolations, documentedProblemTypes } from './checks.js';
import type { FuzzResponse } from './driver.js';
import type { FuzzRequest } from './requests.js';

const types = documentedProblemTypes();
const problem = (status: number, body: Record<string, unknown>, contentType = 'application/problem+json; charset=utf-8'): FuzzResponse => ({
  status,
  headers: { 'content-type': contentType },
  text: JSON.stringify(body),
  ms: 1,
});
const type = (slug: string) => `https://availability.example/problems/${slug}`;
const request = (path: string): FuzzRequest => ({ app: 'offers-api', operation: 'GET /offer/{id}', method: 'GET', path, headers: {} });

describe('answerViolations', () => {
  it('accepts a documented problem and any 2xx', () => {
    expect(answerViolations(problem(404, { type: type('not-found'), title: 'Not Found', status: 404 }), types)).toEqual([]);
    expect(answerViolations({ status: 201, headers: {}, text: 'x', ms: 1 }, types)).toEqual([]);
  });

  it('flags a 5xx and a missing answer', () => {
    expect(answerViolations(problem(500, { type: type('internal'), title: 'Internal Server Error', status: 500 }), types)).toEqual(['HTTP 500']);
    expect(answerViolations({ error: 'ECONNRESET: socket hang up', ms: 1 }, types)).toEqual(['no HTTP answer (ECONNRESET: socket hang up)']);
  });

  it('flags a 4xx that is not problem+json, or whose status, title or type is off', () => {
    expect(answerViolations(problem(431, { statusCode: 431 }, 'application/json'), types)).toHaveLength(4);
    expect(answerViolations(problem(400, { type: type('bad-request'), title: 'Bad Request', status: 413 }), types)).toEqual([
      'HTTP 400 problem has status 413',
    ]);
    expect(answerViolations(problem(413, { type: type('bad-request'), title: 'Payload Too Large', status: 413 }), types)).toEqual([
      'problem type bad-request is documented as 400, answered 413',
    ]);
    expect(answerViolations(problem(400, { type: type('made-up'), title: 'Bad Request', status: 400 }), types)[0]).toMatch(/not in docs\/errors.md/);
  });

  it('wants every validation problem to name its fields', () => {
    const base = { type: type('validation-failed'), title: 'Bad Request', status: 400 };
    expect(answerViolations(problem(400, { ...base, errors: { title: ['must be a string'] } }), types)).toEqual([]);
    expect(answerViolations(problem(400, base), types)).toHaveLength(1);
    expect(answerViolations(problem(400, { ...base, errors: { '': ['x'] } }), types)).toHaveLength(1);
    expect(answerViolations(problem(400, { ...base, errors: { title: 'not a list' } }), types)).toHaveLength(1);
  });
});

describe('apiVersionViolations', () => {
  const ok = { status: 200, headers: {}, text: '{}', ms: 1 };

  it('flags an accepted request naming another version in any spelling', () => {
    for (const query of ['?api-version=2.0', '?API-VERSION=2.0', '?api-version[]=1.0', '?api-version[]=', '?api-version=1.0&api-version=2.0', '?Api-Version=%00']) {
      expect({ query, violations: apiVersionViolations(request(`/offer/1${query}`), ok) }).toEqual({ query, violations: [expect.any(String)] });
    }
  });

  it('accepts 1.0, no version, and refusals', () => {
    expect(apiVersionViolations(request('/offer/1?api-version=1.0'), ok)).toEqual([]);
    expect(apiVersionViolations(request('/offer/1'), ok)).toEqual([]);
    expect(apiVersionViolations(request('/offer/1?api-version=2.0'), { ...ok, status: 400 })).toEqual([]);
  });
});
