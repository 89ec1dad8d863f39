import fc from 'fast-check';
import { hostileKey, hostileString, hostileValue, invalidUtf8, malformedJson, NASTY_FRAGMENTS, nastyText } from './hostile.js';
import { type JsonNode, JsonArray, JsonObject, jsonPreview, jsonText, toNode } from './json-text.js';

/** A message as a compromised or broken service could put it on the bus (an event, a request): its subject and bytes. */
export interface HostileMessage {
  subject: string;
  bytes: Uint8Array;
  /** What was done to the valid message, for people reading a failure. */
  description: string;
}

type Path = Array<string | number>;

/** Every leaf of a JSON value with its path; strings separately, as text fields are what handlers store and send. */
function leaves(node: JsonNode, path: Path = []): Array<{ path: Path; value: JsonNode }> {
  if (node instanceof JsonObject) return node.members.flatMap(([key, value]) => leaves(value, [...path, key]));
  if (node instanceof JsonArray) return node.items.flatMap((item, index) => leaves(item, [...path, index]));
  return [{ path, value: node }];
}

function replaced(node: JsonNode, path: Path, value: JsonNode): JsonNode {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (node instanceof JsonObject) return new JsonObject(node.members.map(([key, item]) => [key, key === head ? replaced(item, rest, value) : item]));
  if (node instanceof JsonArray) return new JsonArray(node.items.map((item, index) => (index === head ? replaced(item, rest, value) : item)));
  return node;
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** What a text field gets: NUL and lone surrogates (what stores and encoders trip over) most, then anything hostile. */
const hostileText = fc.oneof({ weight: 3, arbitrary: nastyText }, { weight: 2, arbitrary: fc.constantFrom(...NASTY_FRAGMENTS) }, { weight: 2, arbitrary: hostileString() });

/**
 * Messages of the given subjects, each a valid one (`valid(subject, id)`) with one thing done to it: a
 * text field holding hostile text (NUL, lone surrogates, 100,000 characters…), any field of the wrong
 * type or shape, a field missing, a member added, or bytes that are not its JSON at all. Each gets a
 * fresh id (an event's `eventId`), so no two events are one event to a consumer.
 */
export function hostileMessages(subjects: string[], valid: (subject: string, id: string) => Record<string, unknown>): fc.Arbitrary<HostileMessage> {
  const base = fc.tuple(fc.constantFrom(...subjects), fc.uuid({ version: 4 })).map(([subject, id]) => ({ subject, event: toNode(valid(subject, id)) }));
  const pick = <T>(items: T[]) => fc.nat({ max: items.length - 1 }).map((index) => items[index]);
  const text = base.chain(({ subject, event }) => {
    const strings = leaves(event).filter((leaf) => typeof leaf.value === 'string');
    return fc.tuple(pick(strings), hostileText).map(([leaf, value]) => ({ subject, node: replaced(event, leaf.path, value), what: `${leaf.path.join('.')} = ${jsonPreview(value, 60)}` }));
  });
  const wrongValue = base.chain(({ subject, event }) =>
    fc.tuple(pick(leaves(event)), hostileValue).map(([leaf, value]) => ({ subject, node: replaced(event, leaf.path, value), what: `${leaf.path.join('.')} = ${jsonPreview(value, 60)}` })),
  );
  const missing = base.chain(({ subject, event }) => {
    const members = (event as JsonObject).members;
    return pick(members.map(([key]) => key)).map((key) => ({ subject, node: new JsonObject(members.filter(([name]) => name !== key)), what: `without ${key}` }));
  });
  const added = base.chain(({ subject, event }) =>
    fc.tuple(hostileKey, hostileValue).map(([key, value]) => ({ subject, node: new JsonObject([...(event as JsonObject).members, [key, value]]), what: `${jsonPreview(key, 40)}: ${jsonPreview(value, 60)} added` })),
  );
  const asJson = fc
    .oneof({ weight: 5, arbitrary: text }, { weight: 3, arbitrary: wrongValue }, { weight: 1, arbitrary: missing }, { weight: 1, arbitrary: added })
    .map(({ subject, node, what }) => ({ subject, bytes: utf8(jsonText(node)), description: what }));
  const notJson = fc.tuple(fc.constantFrom(...subjects), fc.oneof(malformedJson.map(utf8), invalidUtf8.map((buffer) => new Uint8Array(buffer)))).map(([subject, bytes]) => ({
    subject,
    bytes,
    description: `bytes ${jsonPreview(Buffer.from(bytes).toString('latin1'), 40)}`,
  }));
  return fc.oneof({ weight: 9, arbitrary: asJson }, { weight: 1, arbitrary: notJson });
}
