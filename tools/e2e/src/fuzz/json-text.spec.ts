import { describe, expect, it } from '@jest/globals';
import { JsonArray, JsonObject, jsonPreview, jsonText, RawJson, toNode } from './json-text.js';

describe('jsonText', () => {
  it('writes what JSON.stringify cannot: repeated keys, -0, raw number tokens', () => {
    const node = new JsonObject([
      ['workerIds', new JsonArray(['a'])],
      ['WorkerIds', new JsonArray(['b'])],
      ['zero', -0],
      ['big', new RawJson('1e999')],
    ]);
    expect(jsonText(node)).toBe('{"workerIds":["a"],"WorkerIds":["b"],"zero":-0,"big":1e999}');
  });

  it('escapes NUL and lone surrogates in values and keys, so the server gets them back', () => {
    const text = jsonText(toNode({ '\ud800': 'a\u0000b\udfff' }));
    expect(text).toBe('{"\\ud800":"a\\u0000b\\udfff"}');
    expect(JSON.parse(text)).toEqual({ '\ud800': 'a\u0000b\udfff' });
  });

  it('summarises long strings and raw text for reports', () => {
    const preview = jsonPreview(toNode({ title: 'x'.repeat(10_000), deep: new RawJson('['.repeat(5000), '[[[…5000 deep…]]]') }));
    expect(preview.length).toBeLessThan(300);
    expect(preview).toContain('[[[…5000 deep…]]]');
  });
});
