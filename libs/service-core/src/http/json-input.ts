import type { FieldErrors } from './problem.js';

/**
 * Most levels of objects and arrays a request body may nest. Our deepest body (an offer's time slots)
 * needs three; the bound keeps the recursive code that runs later (class-validator, JSON.stringify
 * into the outbox) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 16;

/**
 * Most array elements and object properties a request body may hold in all. The largest body any
 * endpoint takes (10,000 workers in one bulk request, each with a name and an e-mail) holds 30,001;
 * half a million one-character strings fit in 2 MiB and would cost more to parse than to refuse.
 */
export const MAX_JSON_ITEMS = 50_000;

/**
 * Most properties one object may have. No body of ours has an object with more than a dozen; V8
 * builds an object with tens of thousands of distinct names a hundred times slower than an array.
 */
export const MAX_OBJECT_PROPERTIES = 100;

/** At most this many problems are listed; a body built to have a million of them gets the first few. */
const MAX_REPORTED = 10;

/** A path segment longer than this is cut in error reports (a property name can be megabytes long). */
const MAX_REPORTED_SEGMENT = 64;

/**
 * NUL, or a UTF-16 surrogate without its pair. JSON can carry both (`"\u0000"`, `"\ud800"`), but
 * neither is text: PostgreSQL refuses NUL in `text` and both in `jsonb`, and a lone surrogate cannot
 * be encoded as UTF-8. One linear scan, no backtracking.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const NOT_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Property names no body of ours uses and that JavaScript gives a meaning of its own: class-transformer
 * takes an object's own `constructor` for its class (and throws), and `__proto__` reaches prototypes.
 */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a string cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  const found = NOT_TEXT.exec(value);
  if (!found) return undefined;
  return found[0] === '\u0000' ? 'must not contain NUL (\\u0000) characters' : 'must be valid Unicode text (it holds an unpaired surrogate)';
}

/** A path segment safe to echo in a problem: no NUL, no lone surrogate, bounded length. */
function printable(segment: string): string {
  const cut = segment.length > MAX_REPORTED_SEGMENT ? `${segment.slice(0, MAX_REPORTED_SEGMENT)}…` : segment;
  // eslint-disable-next-line no-control-regex -- NUL is exactly what this replaces
  return cut.replace(/[\u0000\ud800-\udfff]/g, '\ufffd');
}

/**
 * Reads a JSON text's structure without parsing it: nesting deeper than `maxDepth`, or more than
 * `maxItems` elements and properties, is refused before JSON.parse builds anything (a million nested
 * arrays fit in 2 MiB and take V8 over a second to build). One pass; strings are skipped with
 * indexOf. Malformed text is left for JSON.parse to report.
 */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxItems = MAX_JSON_ITEMS): string | undefined {
  let depth = 0;
  let items = 0;
  // Per open container: -1 for an array, else the commas seen so far in that object.
  const commas = new Int32Array(maxDepth + 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = text.indexOf('"', i + 1);
      // A quote after an odd number of backslashes is escaped. Each run of backslashes is counted
      // once, so this stays linear.
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return undefined;
      i = end;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return `nests more than ${maxDepth} levels of objects and arrays`;
      if (++items > maxItems) return `holds more than ${maxItems} array elements and object properties in all`;
      commas[depth] = c === 0x7b ? 0 : -1;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (depth > 0) depth--;
    } else if (c === 0x2c /* , */) {
      if (++items > maxItems) return `holds more than ${maxItems} array elements and object properties in all`;
      if (depth > 0 && commas[depth] >= 0 && ++commas[depth] >= MAX_OBJECT_PROPERTIES) {
        return `has an object with more than ${MAX_OBJECT_PROPERTIES} properties`;
      }
    }
  }
  return undefined;
}

function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let j = quote - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
  return backslashes % 2 === 1;
}

interface Node {
  value: unknown;
  /** Property name or array index in the parent; undefined for the body itself. */
  key: string | number | undefined;
  parent: Node | undefined;
  depth: number;
}

/** `events[0].start`; only built for a node being reported. */
function pathOf(node: Node): string {
  const keys: Array<string | number> = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i];
    path += typeof key === 'number' ? `[${key}]` : path === '' ? printable(key) : `.${printable(key)}`;
  }
  return path || 'body';
}

/**
 * Checks a parsed JSON value before anything else looks at it: nesting at most `maxDepth` levels,
 * every string (values and property names) storable as text, and no reserved property name. Iterative and linear in the size of the
 * value, so the worst body that fits the size limit costs one pass. Returns field errors keyed by the
 * path as the client wrote it (`events[0].start`), or undefined when the value is fine.
 */
export function jsonInputProblems(root: unknown, maxDepth = MAX_JSON_DEPTH): FieldErrors | undefined {
  // No prototype: a path such as `constructor` must be a key of its own, not Object.prototype's.
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  let reported = 0;
  const report = (node: Node, message: string) => {
    (errors[pathOf(node)] ??= []).push(message);
    reported++;
  };
  const stack: Node[] = [];
  // Strings and scalars are checked where they are met; only objects and arrays are queued, so an
  // array of a million numbers costs no allocation per element.
  const visit = (value: unknown, key: string | number | undefined, parent: Node | undefined, depth: number) => {
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) report({ value, key, parent, depth }, problem);
    } else if (value !== null && typeof value === 'object') {
      stack.push({ value, key, parent, depth });
    }
  };
  visit(root, undefined, undefined, 0);
  while (stack.length > 0 && reported < MAX_REPORTED) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (node.depth >= maxDepth) {
      report(node, `nests too deeply (at most ${maxDepth} levels of objects and arrays)`);
      continue;
    }
    const depth = node.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0 && reported < MAX_REPORTED; i--) visit(value[i], i, node, depth);
      continue;
    }
    const keys = Object.keys(value as object);
    for (let i = keys.length - 1; i >= 0 && reported < MAX_REPORTED; i--) {
      const key = keys[i];
      const problem = textProblem(key);
      if (problem) report({ value: undefined, key, parent: node, depth }, `property name ${problem}`);
      else if (RESERVED_NAMES.has(key)) report({ value: undefined, key, parent: node, depth }, `"${key}" is not allowed as a property name`);
      else visit((value as Record<string, unknown>)[key], key, node, depth);
    }
  }
  return reported > 0 ? errors : undefined;
}

/**
 * The same checks for a query string or route parameters (`{ key: value | value[] }`): every name and
 * value must be text. Fastify has already percent-decoded them, so `%00` arrives here as NUL.
 */
export function parameterProblems(parameters: unknown): FieldErrors | undefined {
  if (parameters === null || typeof parameters !== 'object') return undefined;
  return jsonInputProblems(parameters, 2);
}

/** A reserved property name written plainly; one written with `\u` escapes is caught by the escape test. */
const PLAIN_RESERVED_NAME = /__proto__|constructor|prototype/;

/**
 * A request body from its text: its shape bounded before JSON.parse (jsonTextProblem), then parsed,
 * then every string and property name checked (jsonInputProblems). The walk is skipped when the text
 * cannot hold what it looks for: JSON forbids raw control characters in strings and the UTF-8 decoder
 * turns a lone surrogate into U+FFFD, so NUL and lone surrogates only arrive as `\u` escapes, and a
 * reserved name arrives either written plainly or escaped. Returns the value, or the field errors.
 */
export function parseJsonBody(text: string): { value: unknown } | { problems: FieldErrors; detail: string; slug: 'validation-failed' | 'malformed-json' } {
  if (text.trim() === '') return { problems: {}, detail: 'The body is empty but Content-Type says application/json.', slug: 'malformed-json' };
  const shape = jsonTextProblem(text);
  if (shape) return { problems: { body: [shape] }, detail: `The request body ${shape}.`, slug: 'validation-failed' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problems: {}, detail: 'The body is not valid JSON.', slug: 'malformed-json' };
  }
  if (!text.includes('\\u') && !PLAIN_RESERVED_NAME.test(text)) return { value };
  const problems = jsonInputProblems(value);
  return problems ? { problems, detail: 'The request is not valid; see errors for each field.', slug: 'validation-failed' } : { value };
}
