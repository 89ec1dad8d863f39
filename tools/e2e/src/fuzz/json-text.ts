/**
 * JSON as the fuzzer sends it. `JSON.stringify` cannot write everything a hostile client can: two
 * members with the same name, numbers such as `1e999` (Infinity once parsed) or `-0`, or nesting
 * thousands of levels deep without recursion. These nodes can, and print back as readable JSON.
 */
export type JsonNode = null | boolean | number | string | JsonObject | JsonArray | RawJson;

/** An object as an ordered list of members; names may repeat. */
export class JsonObject {
  constructor(readonly members: Array<[string, JsonNode]>) {}
}

export class JsonArray {
  constructor(readonly items: JsonNode[]) {}
}

/** JSON text written as given (a number token, deep nesting, or deliberately malformed text). */
export class RawJson {
  constructor(
    readonly text: string,
    /** Short description for failure reports, e.g. `[[[…10000 deep…]]]`. */
    readonly label = text.length > 80 ? `${text.slice(0, 40)}…(${text.length} chars)` : text,
  ) {}
}

/** Plain JSON-compatible value → nodes (objects keep their key order). */
export function toNode(value: unknown): JsonNode {
  if (value === null || value === undefined) return null;
  if (value instanceof JsonObject || value instanceof JsonArray || value instanceof RawJson) return value;
  if (Array.isArray(value)) return new JsonArray(value.map(toNode));
  if (typeof value === 'object') return new JsonObject(Object.entries(value).map(([key, item]) => [key, toNode(item)]));
  return value as JsonNode;
}

/** The JSON text of a node. Lone surrogates are written as `\udXXX` escapes, as JSON.stringify does. */
export function jsonText(node: JsonNode): string {
  if (node instanceof RawJson) return node.text;
  if (node instanceof JsonArray) return `[${node.items.map(jsonText).join(',')}]`;
  if (node instanceof JsonObject) return `{${node.members.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
  if (typeof node === 'number' && Object.is(node, -0)) return '-0';
  return JSON.stringify(node);
}

/** The same JSON shortened for people: long strings and raw text are summarised. */
export function jsonPreview(node: JsonNode, max = 120): string {
  if (node instanceof RawJson) return node.label;
  if (node instanceof JsonArray) {
    const shown = node.items.slice(0, 5).map((item) => jsonPreview(item, max));
    return `[${shown.join(',')}${node.items.length > 5 ? `,…(${node.items.length} items)` : ''}]`;
  }
  if (node instanceof JsonObject) return `{${node.members.map(([key, value]) => `${summarise(JSON.stringify(key), max)}:${jsonPreview(value, max)}`).join(',')}}`;
  if (typeof node === 'string') return summarise(JSON.stringify(node), max);
  return jsonText(node);
}

function summarise(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max / 2)}…(${text.length} chars)…${text.slice(-10)}` : text;
}
