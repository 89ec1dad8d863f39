import { describe, expect, it } from '@jest/globals';
import { apiVersionOf } from './api-version.guard.js';
import { ProblemException } from './problem.js';

function problemOf(query: Record<string, unknown>) {
  try {
    apiVersionOf(query);
  } catch (error) {
    return (error as ProblemException).problem;
  }
  throw new Error('expected a problem');
}

describe('apiVersionOf', () => {
  it('reads the parameter whatever its letter case', () => {
    expect(apiVersionOf({ 'api-version': '1.0' })).toBe('1.0');
    expect(apiVersionOf({ 'API-VERSION': '2.0' })).toBe('2.0');
    expect(apiVersionOf({ 'Api-Version': '' })).toBe('');
  });

  it('is undefined when absent', () => {
    expect(apiVersionOf({})).toBeUndefined();
    expect(apiVersionOf(undefined)).toBeUndefined();
    expect(apiVersionOf({ 'api-versions': '1.0', version: '2' })).toBeUndefined();
  });

  it.each([
    [{ 'api-version': ['1.0', '1.0'] }],
    [{ 'api-version[]': '1.0' }],
    [{ 'api-version[0]': '1.0' }],
    [{ 'api-version': '1.0', 'API-VERSION': '1.0' }],
  ])('rejects repeats and arrays: %p', (query) => {
    expect(problemOf(query)).toMatchObject({ status: 400, errors: { 'api-version': [expect.stringContaining('once')] } });
  });
});
