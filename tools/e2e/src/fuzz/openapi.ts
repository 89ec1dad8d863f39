import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The subset of JSON Schema the OpenAPI documents use and the generators understand. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
  format?: string;
  $ref?: string;
  allOf?: JsonSchema[];
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

/** One operation of a service's OpenAPI document, with `$ref`s in its request body resolved. */
export interface DocumentedOperation {
  app: string;
  method: string;
  /** As in the document, e.g. `/offer/{id}/complete`. */
  path: string;
  /** `METHOD path`, the key of the operation table. */
  key: string;
  parameters: OpenApiParameter[];
  /** The JSON request body's schema, when the document gives one. */
  bodySchema?: JsonSchema;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** Every operation of a document, in document order. */
export function documentedOperations(app: string, document: unknown): DocumentedOperation[] {
  const doc = document as OpenApiDocument;
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        app,
        method: method.toUpperCase(),
        path,
        key: operationKey(method, path),
        parameters: operation.parameters ?? [],
        bodySchema: schema ? resolveRefs(schema, doc) : undefined,
      });
    }
  }
  return operations;
}

/** The committed document of a service (docs/openapi/<app>.json, kept equal to what it serves by openapi-docs.spec.ts). */
export function committedDocument(app: string, root = process.cwd()): unknown {
  return JSON.parse(readFileSync(resolve(root, 'docs/openapi', `${app}.json`), 'utf8'));
}

function resolveRefs(schema: JsonSchema, doc: OpenApiDocument, depth = 0): JsonSchema {
  if (depth > 20) throw new Error('OpenAPI schema nests deeper than 20 $refs');
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return resolveRefs(target, doc, depth + 1);
  }
  if (schema.allOf?.length === 1) return resolveRefs(schema.allOf[0], doc, depth + 1);
  const resolved: JsonSchema = { ...schema };
  if (schema.items) resolved.items = resolveRefs(schema.items, doc, depth + 1);
  if (schema.properties) {
    resolved.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, value]) => [name, resolveRefs(value, doc, depth + 1)]));
  }
  return resolved;
}
