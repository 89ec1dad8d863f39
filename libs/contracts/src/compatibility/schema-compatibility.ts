/**
 * What a change to a JSON Schema breaks for those who read values of it (an event's consumers, an
 * API's clients reading a response): a field they may rely on is gone, no longer always there, or of
 * another type; or a value appears that they were promised would not (a wider enum). Adding fields,
 * making one always present and narrowing what may appear break no reader.
 */
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
};

function typesOf(schema: Schema): string[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))].sort();
  if (schema.const !== undefined) return [typeof schema.const === 'string' ? 'string' : typeof schema.const];
  if (schema.type === undefined) return ['any'];
  return (Array.isArray(schema.type) ? schema.type : [schema.type]).slice().sort();
}

/** The literal values a schema allows, when it allows only literals (`const`, `enum`, unions of them). */
function literalsOf(schema: Schema): unknown[] | undefined {
  if (schema.const !== undefined) return [schema.const];
  if (schema.enum) return schema.enum;
  if (schema.anyOf) {
    const parts = schema.anyOf.map(literalsOf);
    return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
  }
  return undefined;
}

/** Each change in `current` that breaks a reader of `released`, as `<path>: <what changed>`. */
export function breakingChangesForReaders(released: Schema, current: Schema, path = ''): string[] {
  const where = path || '/';
  const before = typesOf(released);
  const after = typesOf(current);
  if (!before.includes('any') && after.some((type) => !before.includes(type))) {
    return [`${where}: type changed from ${before.join('|')} to ${after.join('|')}`];
  }
  const problems: string[] = [];
  const wereLiterals = literalsOf(released);
  const areLiterals = literalsOf(current);
  if (wereLiterals) {
    const added = (areLiterals ?? ['any value']).filter((value) => !wereLiterals.includes(value));
    if (added.length > 0) problems.push(`${where}: may now be ${added.map((value) => JSON.stringify(value)).join(', ')}`);
  }
  if (released.pattern !== undefined && current.pattern !== released.pattern) {
    problems.push(`${where}: format changed from /${released.pattern}/ to ${current.pattern === undefined ? 'any string' : `/${current.pattern}/`}`);
  }
  for (const [name, property] of Object.entries(released.properties ?? {})) {
    const next = current.properties?.[name];
    if (!next) {
      problems.push(`${path}/${name}: removed`);
      continue;
    }
    if (released.required?.includes(name) && !current.required?.includes(name)) problems.push(`${path}/${name}: no longer always present`);
    problems.push(...breakingChangesForReaders(property, next, `${path}/${name}`));
  }
  if (released.items && current.items) problems.push(...breakingChangesForReaders(released.items, current.items, `${path}[]`));
  return problems;
}

/**
 * Each change in `current` that breaks a writer of `released` (a client sending a request body): a
 * field it never sent is now required, or a field it sends must now be of another type or format.
 * Removing a field breaks no writer: the services ignore fields they do not know.
 */
export function breakingChangesForWriters(released: Schema, current: Schema, path = ''): string[] {
  const where = path || '/';
  const before = typesOf(released);
  const after = typesOf(current);
  if (!after.includes('any') && before.some((type) => !after.includes(type))) {
    return [`${where}: must now be ${after.join('|')}, not ${before.join('|')}`];
  }
  const problems: string[] = [];
  const wereLiterals = literalsOf(released);
  const areLiterals = literalsOf(current);
  if (areLiterals) {
    const dropped = (wereLiterals ?? ['any value']).filter((value) => !areLiterals.includes(value));
    if (dropped.length > 0) problems.push(`${where}: may no longer be ${dropped.map((value) => JSON.stringify(value)).join(', ')}`);
  }
  if (current.pattern !== undefined && current.pattern !== released.pattern) problems.push(`${where}: must now match /${current.pattern}/`);
  for (const name of current.required ?? []) {
    if (!released.required?.includes(name)) problems.push(`${path}/${name}: now required`);
  }
  for (const [name, property] of Object.entries(released.properties ?? {})) {
    const next = current.properties?.[name];
    if (next) problems.push(...breakingChangesForWriters(property, next, `${path}/${name}`));
  }
  if (released.items && current.items) problems.push(...breakingChangesForWriters(released.items, current.items, `${path}[]`));
  return problems;
}
