import fc from 'fast-check';
import { type JsonNode, JsonArray, JsonObject, RawJson } from './json-text.js';

/** Characters that break naive code: NUL, lone surrogates, direction overrides, combining marks, joiners. */
export const NASTY_FRAGMENTS = [
  '\u0000',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udfff\ud800',
  '\u202Eevil\u202C',
  '\u200F\u05E9\u05DC\u05D5\u05DD',
  'مرحبا بالعالم',
  'e\u0301\u0301\u0301\u0301',
  'Z\u0351\u0352\u0353\u0354\u0355\u0356',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'ＡＢＣ１２３＠ｅｘａｍｐｌｅ．ｃｏｍ',
  '\uFEFF',
  '\u200B',
  '\u2028\u2029',
  '\r\n',
  '\t',
  '\u00ff\u00fe',
  '\uffff',
];

/** Strings that look like something else: numbers, paths, markup, template and injection attempts. */
export const LOOKALIKES = [
  '',
  ' ',
  ' \t\n ',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '-1',
  '1e308',
  '1e999',
  '0x10',
  '９',
  '2147483648',
  '9007199254740993',
  '../../etc/passwd',
  '..',
  '%00',
  '%2F',
  "'; DROP TABLE offers.offer; --",
  '" OR 1=1 --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  'a@b',
  '"a b"@example.com',
  'user@[127.0.0.1]',
  'x@xn--80ak6aa92e.com',
  '2030-02-30T00:00:00Z',
  '2030-01-01T00:00:00+01:00',
  '2030-01-01T24:00:00Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '2030-01-01',
  'http://127.0.0.1:1/',
  'http://[::1]:1',
  'file:///etc/passwd',
  'javascript:alert(1)',
];

/** Long strings: at, just over and far over the bounds the documents give, ASCII and multi-byte. */
function longStrings(bound?: number): fc.Arbitrary<string> {
  const lengths = [bound, bound === undefined ? undefined : bound + 1, 256, 4097].filter((n): n is number => n !== undefined);
  const length = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...lengths) }, { weight: 1, arbitrary: fc.constant(100_000) });
  return fc.tuple(length, fc.constantFrom('a', 'é', '😀', '\u0000', '\ud800')).map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));
}

/** Ordinary-looking text with something nasty inside: what reaches a handler when it passes the type checks. */
export const nastyText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', 'Night shift ', 'user', 'a@b.example'),
    // NUL and lone surrogates are what databases and encoders trip over most; they come up most.
    fc.oneof({ weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udfff') }, { weight: 1, arbitrary: fc.constantFrom(...NASTY_FRAGMENTS) }),
    fc.constantFrom('', ' pickers', '.example'),
  )
  .map((parts) => parts.join(''));

/** A hostile string; `bound` is the field's documented maxLength, when it has one. */
export function hostileString(bound?: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...LOOKALIKES) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_FRAGMENTS) },
    { weight: 3, arbitrary: nastyText },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 2, arbitrary: longStrings(bound) },
  );
}

/** Numbers at the edges; some are written as JSON tokens JSON.stringify cannot produce. */
export const hostileNumber: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constantFrom<JsonNode>(0, -1, 1, 1.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, Number.MAX_SAFE_INTEGER, 1e308, -1e308, 5e-324),
  fc.constantFrom(
    new RawJson('-0'),
    new RawJson('9007199254740993'),
    new RawJson('1e999'),
    new RawJson('-1e999'),
    new RawJson('1E+2'),
    new RawJson('0.0000000000000000000000000001'),
    new RawJson('123456789012345678901234567890'),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Nesting thousands of levels deep, written directly as text (no recursion anywhere on our side). */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(64, 1_000, 5_000, 10_000), fc.constantFrom('array', 'object'))
  .map(([depth, kind]) =>
    kind === 'array'
      ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`, `[[[…${depth} deep…]]]`)
      : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, `{"a":{"a":…${depth} deep…}}`),
  );

/** Object keys that trip up prototype handling, case-insensitive matching or string handling. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '', '\u0000', '\ud800', 'a'.repeat(10_000), '😀', 'ＫＥＹ'),
  fc.string({ maxLength: 10 }),
);

const prototypePollution = fc.constantFrom(
  new RawJson('{"__proto__":{"isAdmin":true,"status":200}}'),
  new RawJson('{"constructor":{"prototype":{"polluted":true}}}'),
  new RawJson('{"__proto__":[]}'),
);

/** Any JSON value, leaning hard on the hostile ones: wrong types for whatever the field expects. */
export const hostileValue: fc.Arbitrary<JsonNode> = fc.letrec<{ value: JsonNode }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: hostileString() },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom<JsonNode>(true, false, null) },
    { weight: 1, arbitrary: fc.constantFrom<JsonNode>(new JsonArray([]), new JsonObject([])) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items) => new JsonArray(items)) },
    { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((members) => new JsonObject(members)) },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: prototypePollution },
    { weight: 1, arbitrary: fc.constantFrom(10_001, 100_000).map((n) => new RawJson(`[${'"x",'.repeat(n - 1)}"x"]`, `["x",…${n} items]`)) },
  ),
})).value;

/** Bodies that are not JSON, or not quite. */
export const malformedJson: fc.Arbitrary<string> = fc.constantFrom(
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"a":1,}',
  '{"a":1}}',
  '{"a":1} trailing',
  "{'a':1}",
  '{a:1}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a":"\u0000"}',
  '{"a":1 /* comment */}',
  '\uFEFF{}',
  'null',
  'true',
  '0',
  '"just a string"',
  '[]',
  '{"a":"unterminated',
  '\u0000',
);

/** Content types a JSON API must refuse or read correctly. */
export const oddContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  '',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/JSON',
  'Application/Json; Charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/json, text/plain',
  'application/merge-patch+json',
  'application/problem+json',
  'application/vnd.api+json',
  '*/*',
  'json',
  'application/json\u00ff',
);

/** Raw bytes that are not valid UTF-8, or are JSON in another encoding. */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc.constantFrom(
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
  Buffer.from('{"a":"\xc0\xaf"}', 'latin1'),
  Buffer.from('{"a":"\xed\xa0\x80"}', 'latin1'),
  Buffer.from('{"a":"\xff"}', 'latin1'),
  Buffer.from('\xef\xbb\xbf{"a":1}', 'latin1'),
  Buffer.from('{"title":"x"}', 'utf16le'),
);

/** Path segments that are not what a route expects: long, encoded separators, dots, NUL, odd numbers. */
export const hostilePathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%2F',
    'a%2Fb',
    '..',
    '.',
    '%2e%2e',
    '%2E',
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%FF',
    '%',
    '%G0',
    '%252F',
    '%20',
    ';',
    '~',
    '*',
    '0',
    '-0',
    '-1',
    '1e308',
    '9007199254740993',
    '2147483648',
    'NaN',
    'null',
    '__proto__',
    'constructor',
    '00000000-0000-0000-0000-000000000000',
    'F0F0F0F0-0000-4000-8000-000000000000',
    '%F0%9F%98%80',
    '%EF%BC%A1',
  ),
  fc.constantFrom(199, 200, 201, 1_000, 5_000).map((n) => 'x'.repeat(n)),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.uuid(),
);

/** Query values with the same tricks, written as they go on the request line. */
export const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  hostilePathSegment,
  // Numbers at the edges, for limits and cursors.
  fc.constantFrom('0', '-0', '-1', '2147483648', '9007199254740993', '1e308', '1e999', 'Infinity', 'NaN', '1.5', '0x1F', '1_000'),
  fc.constantFrom('', '1.0', '2.0', '%201.0', '1.0%00', '1', '50', '100', '101', '0', '1.5', '1e2', '1e308', '-1', '%2B1', '0x10', '+1', '%201', '%EF%BC%91'),
);

/** Percent-encodes a string for a URL without choking on lone surrogates (they are sent as WTF-8 bytes). */
export function encodeComponent(value: string): string {
  let out = '';
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    const isHigh = code >= 0xd800 && code <= 0xdbff;
    const next = value.charCodeAt(index + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(index, index + 2));
      index += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else {
      out += encodeURIComponent(value[index]);
    }
  }
  return out;
}
