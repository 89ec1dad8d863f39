import { describe, expect, it } from '@jest/globals';
import { jsonInputProblems, MAX_JSON_DEPTH, parameterProblems, textProblem } from './json-input.js';

describe('textProblem', () => {
  it.each(['', 'Pickers', 'emoji \ud83d\ude00 paired', 'tab\tand newline\n', 'ß ü 中文'])('accepts text: %p', (value) => {
    expect(textProblem(value)).toBeUndefined();
  });

  it.each([
    ['NUL', 'Pick\u0000ers', /NUL/],
    ['a lone high surrogate', 'Pick\ud800ers', /surrogate/],
    ['a lone high surrogate at the end', 'x\ud83d', /surrogate/],
    ['a lone low surrogate', '\udc00x', /surrogate/],
    ['two high surrogates', '\ud83d\ud83d\ude00', /surrogate/],
  ])('rejects %s', (_name, value, message) => {
    expect(textProblem(value)).toMatch(message);
  });
});

describe('jsonInputProblems', () => {
  it('passes ordinary bodies', () => {
    expect(jsonInputProblems({ title: 'x', events: [{ start: 'a' }], n: 1, b: true, z: null })).toBeUndefined();
    expect(jsonInputProblems(['a', 'b'])).toBeUndefined();
  });

  it('names the field of a bad string, at any level', () => {
    expect(jsonInputProblems({ title: 'a\u0000' })).toEqual({ title: [expect.stringContaining('NUL')] });
    expect(jsonInputProblems({ invitations: [{ name: 'ok' }, { name: '\ud800' }] })).toEqual({ 'invitations[1].name': [expect.stringContaining('surrogate')] });
    expect(jsonInputProblems(['ok', '\u0000'])).toEqual({ '[1]': [expect.any(String)] });
    expect(jsonInputProblems('\u0000')).toEqual({ body: [expect.any(String)] });
  });

  it('checks property names too, and reports them without echoing the bad character', () => {
    const errors = jsonInputProblems({ 'ti\u0000tle': 'x' }) as Record<string, string[]>;
    expect(Object.keys(errors)).toEqual(['ti\ufffdtle']);
    expect(errors['ti\ufffdtle'][0]).toMatch(/^property name/);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and rejects one more`, () => {
    const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`) as unknown;
    expect(jsonInputProblems(nested(MAX_JSON_DEPTH))).toBeUndefined();
    const errors = jsonInputProblems({ title: nested(100_000) }) as Record<string, string[]>;
    expect(Object.values(errors)).toEqual([[expect.stringContaining('nests too deeply')]]);
    expect(Object.keys(errors)[0]).toMatch(/^title(\[0\])+$/);
  });

  it('lists at most ten problems however many there are', () => {
    const errors = jsonInputProblems(Array.from({ length: 100_000 }, () => '\u0000')) as Record<string, string[]>;
    expect(Object.keys(errors)).toHaveLength(10);
  });
});

describe('parameterProblems', () => {
  it('checks query and route parameter names and values, repeated ones too', () => {
    expect(parameterProblems({ limit: '10', status: ['a', 'b'] })).toBeUndefined();
    expect(parameterProblems({ organisationId: 'a\u0000b' })).toEqual({ organisationId: [expect.any(String)] });
    expect(parameterProblems({ status: ['a', '\ud800'] })).toEqual({ 'status[1]': [expect.any(String)] });
    expect(parameterProblems({ 'x\u0000': '1' })).toEqual({ 'x\ufffd': [expect.any(String)] });
    expect(parameterProblems(undefined)).toBeUndefined();
  });
});
