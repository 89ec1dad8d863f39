import { breakingChangesForReaders, breakingChangesForWriters } from './schema-compatibility.js';

/** The parts of an OpenAPI 3 document a client depends on. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** A schema with every `#/components/schemas/…` reference replaced by what it names. */
function resolved(schema: unknown, document: OpenApiDocument, depth = 0): Record<string, unknown> {
  if (schema === null || typeof schema !== 'object' || depth > 16) return (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(schema)) return schema.map((item) => resolved(item, document, depth + 1)) as never;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return resolved(document.components?.schemas?.[ref.slice('#/components/schemas/'.length)], document, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolved(value, document, depth + 1)]));
}

function jsonSchema(content: Record<string, { schema?: unknown }> | undefined, document: OpenApiDocument): Record<string, unknown> | undefined {
  const schema = content?.['application/json']?.schema;
  return schema === undefined ? undefined : resolved(schema, document);
}

/**
 * Each change in `current` that breaks a client written against `released`: an operation or a
 * documented response gone, a parameter or body field newly required, a body field of another type,
 * or a response that no longer carries what it did (breakingChangesForReaders).
 */
export function breakingApiChanges(released: OpenApiDocument, current: OpenApiDocument): string[] {
  const problems: string[] = [];
  for (const [path, operations] of Object.entries(released.paths)) {
    for (const method of METHODS) {
      const before = operations[method];
      if (!before) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const after = current.paths[path]?.[method];
      if (!after) {
        problems.push(`${name}: removed`);
        continue;
      }
      const known = new Set((before.parameters ?? []).map((p) => `${p.in}:${p.name}`));
      for (const parameter of after.parameters ?? []) {
        if (parameter.required && !known.has(`${parameter.in}:${parameter.name}`)) problems.push(`${name}: ${parameter.in} parameter ${parameter.name} now required`);
      }
      if (after.requestBody?.required && before.requestBody && !before.requestBody.required) problems.push(`${name}: a request body is now required`);
      const bodyBefore = jsonSchema(before.requestBody?.content, released);
      const bodyAfter = jsonSchema(after.requestBody?.content, current);
      if (bodyBefore && bodyAfter) for (const problem of breakingChangesForWriters(bodyBefore, bodyAfter)) problems.push(`${name}: request body ${problem}`);
      for (const [status, response] of Object.entries(before.responses ?? {})) {
        const next = after.responses?.[status];
        if (!next) {
          problems.push(`${name}: response ${status} no longer documented`);
          continue;
        }
        const schemaBefore = jsonSchema(response.content, released);
        const schemaAfter = jsonSchema(next.content, current);
        if (schemaBefore && !schemaAfter) problems.push(`${name}: response ${status} no longer has a body schema`);
        if (schemaBefore && schemaAfter) for (const problem of breakingChangesForReaders(schemaBefore, schemaAfter)) problems.push(`${name}: response ${status} ${problem}`);
      }
    }
  }
  return problems;
}
