import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { jsonInputProblems, jsonTextProblem, MAX_JSON_DEPTH, MAX_JSON_ITEMS, MAX_OBJECT_PROPERTIES, parameterProblems, parseJsonBody, textProblem } from './json-input.js';

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

describe('jsonTextProblem', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

  it('passes ordinary JSON, and malformed JSON (JSON.parse reports that)', () => {
    expect(jsonTextProblem('{"title":"a,b[{","workerIds":["w1","w2"],"n":[1,2,3]}')).toBeUndefined();
    expect(jsonTextProblem('{"title":')).toBeUndefined();
    expect(jsonTextProblem('"unterminated [[[[')).toBeUndefined();
  });

  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more, before parsing`, () => {
    expect(jsonTextProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTextProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/nests more than 16/);
    expect(jsonTextProblem(`{"x":${'['.repeat(1_000_000)}`)).toMatch(/nests/);
  });

  it('does not count brackets or commas inside strings, escaped quotes included', () => {
    const inString = `"${'[,'.repeat(100_000)}"`;
    expect(jsonTextProblem(`{"a":${inString}}`)).toBeUndefined();
    expect(jsonTextProblem(`{"a":"x\\"}`)).toBeUndefined();
    expect(jsonTextProblem(`{"a":"\\"${'['.repeat(20)}"}`)).toBeUndefined();
    expect(jsonTextProblem(`{"a":"\\\\"${'['.repeat(20)}`)).toMatch(/nests/);
  });

  it(`refuses more than ${MAX_JSON_ITEMS} elements and properties in all`, () => {
    const items = (n: number) => `[${Array(n).fill('0').join(',')}]`;
    expect(jsonTextProblem(items(MAX_JSON_ITEMS - 1))).toBeUndefined();
    expect(jsonTextProblem(items(MAX_JSON_ITEMS + 1))).toMatch(/more than 50000/);
  });

  it(`refuses an object of more than ${MAX_OBJECT_PROPERTIES} properties, counting each object on its own`, () => {
    const object = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":[1,2,{"a":1,"b":2}]`).join(',')}}`;
    expect(jsonTextProblem(object(MAX_OBJECT_PROPERTIES))).toBeUndefined();
    expect(jsonTextProblem(`[${Array(50).fill(object(MAX_OBJECT_PROPERTIES)).join(',')}]`)).toBeUndefined();
    expect(jsonTextProblem(`{"x":${object(MAX_OBJECT_PROPERTIES + 1)}}`)).toMatch(/more than 100 properties/);
  });
});

describe('parseJsonBody', () => {
  it('finds NUL, lone surrogates and reserved names whether written plainly or escaped', () => {
    for (const text of ['{"a":"x\\u0000"}', '{"a":"\\ud800"}', '{"a":{"constructor":1}}', '{"\\u0063onstructor":1}', '{"__proto__":{}}', '{"a":["prototype",{"prototype":2}]}']) {
      expect(parseJsonBody(text)).toMatchObject({ slug: 'validation-failed' });
    }
    expect(parseJsonBody('{"a":"prototype"}')).toEqual({ value: { a: 'prototype' } });
    expect(parseJsonBody('{"a":"\\ud83d\\ude00 \\u00e9"}')).toEqual({ value: { a: '😀 é' } });
  });

  it('calls an empty or broken body malformed', () => {
    expect(parseJsonBody('  ')).toMatchObject({ slug: 'malformed-json' });
    expect(parseJsonBody('{"a":')).toMatchObject({ slug: 'malformed-json' });
  });

  it('skips no problem the full check would find, whatever the body', () => {
    const keys = fc.oneof(fc.string(), fc.constantFrom('constructor', '__proto__', 'prototype', 'a\u0000', '\ud800'));
    const strings = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\u0000', '\udfff', '\ud83d\ude00'));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, strings, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(keys, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (generated) => {
        const text = JSON.stringify(generated);
        const expected = jsonInputProblems(JSON.parse(text));
        const parsed = parseJsonBody(text);
        return expected === undefined ? 'value' in parsed : 'problems' in parsed && parsed.slug === 'validation-failed';
      }),
      { numRuns: 2_000 },
    );
  });
});
