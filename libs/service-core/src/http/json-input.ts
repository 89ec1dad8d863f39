import type { FieldErrors } from './problem.js';

/**
 * Most levels of objects and arrays a request body may nest. Our deepest body (an offer's time slots)
 * needs three; the bound keeps the recursive code that runs later (class-transformer, class-validator,
 * JSON.stringify into the outbox) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 16;

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

interface Node {
  value: unknown;
  segment: string;
  parent: Node | undefined;
  depth: number;
}

function pathOf(node: Node): string {
  const segments: string[] = [];
  for (let at: Node | undefined = node; at; at = at.parent) segments.push(at.segment);
  let path = '';
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    path += segment.startsWith('[') || path === '' ? segment : `.${segment}`;
  }
  return path || 'body';
}

/**
 * Checks a parsed JSON value before anything else looks at it: nesting at most `maxDepth` levels, and
 * every string (values and property names) storable as text. Iterative and linear in the size of the
 * value, so the worst body that fits the size limit costs one pass. Returns field errors keyed by the
 * path as the client wrote it (`events[0].start`), or undefined when the value is fine.
 */
export function jsonInputProblems(root: unknown, maxDepth = MAX_JSON_DEPTH): FieldErrors | undefined {
  const errors: FieldErrors = {};
  let reported = 0;
  const report = (node: Node, message: string) => {
    (errors[pathOf(node)] ??= []).push(message);
    reported++;
  };
  const stack: Node[] = [{ value: root, segment: '', parent: undefined, depth: 0 }];
  while (stack.length > 0 && reported < MAX_REPORTED) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) report(node, problem);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (node.depth >= maxDepth) {
      report(node, `nests too deeply (at most ${maxDepth} levels of objects and arrays)`);
      continue;
    }
    const depth = node.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], segment: `[${i}]`, parent: node, depth });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child: Node = { value: (value as Record<string, unknown>)[key], segment: printable(key), parent: node, depth };
      const problem = textProblem(key);
      if (problem) report(child, `property name ${problem}`);
      else stack.push(child);
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
