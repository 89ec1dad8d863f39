import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fetchOpenApiDocuments, httpServices, OPENAPI_DOCS_DIR, readCommittedOpenApiDocument } from '@availability/testing';

/**
 * The OpenAPI documents in docs/openapi are the ones the services serve: each service runs as its own
 * process and its /openapi.json is compared with the committed file.
 */
const HINT = 'run `npm run docs:openapi` and commit docs/openapi';

let apps: string[];
let served: Map<string, string>;

beforeAll(async () => {
  apps = await httpServices();
  served = await fetchOpenApiDocuments(apps);
}, 120_000);

afterAll(() => served?.clear());

describe('docs/openapi', () => {
  it('has a document for every HTTP service and no other', async () => {
    const committed = (await readdir(OPENAPI_DOCS_DIR)).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5));
    expect({ services: [...committed].sort(), hint: HINT }).toEqual({ services: apps, hint: HINT });
  });

  it('matches what each service serves at /openapi.json', async () => {
    const stale: string[] = [];
    for (const app of apps) {
      if ((await readCommittedOpenApiDocument(app)) !== served.get(app)) stale.push(`${OPENAPI_DOCS_DIR}/${app}.json`);
    }
    if (stale.length > 0) throw new Error(`Out of date: ${stale.join(', ')}; ${HINT}`);
  });

  it('gives every error response the one ProblemDetails schema, and describes bearer tokens as the opaque strings they are', () => {
    const missing: string[] = [];
    for (const app of apps) {
      const document = JSON.parse(served.get(app) as string) as {
        paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>>;
        components?: { securitySchemes?: Record<string, { scheme?: string; bearerFormat?: string }>; schemas?: Record<string, unknown> };
      };
      expect([app, document.components?.schemas?.ProblemDetails !== undefined]).toEqual([app, true]);
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            if (Number(status) < 400) continue;
            if (response.content?.['application/problem+json']?.schema?.$ref !== '#/components/schemas/ProblemDetails') missing.push(`${app} ${method.toUpperCase()} ${path} ${status}`);
          }
        }
      }
      for (const [name, scheme] of Object.entries(document.components?.securitySchemes ?? {})) {
        if (scheme.scheme === 'bearer') expect([app, name, scheme.bearerFormat]).toEqual([app, name, 'opaque']);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents the success of every operation of every service, and the body of every success response that has one', () => {
    const undocumented: string[] = [];
    for (const app of apps) {
      const document = JSON.parse(served.get(app) as string) as {
        paths: Record<string, Record<string, { responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }> }>>;
      };
      for (const [path, operations] of Object.entries(document.paths)) {
        if (/^\/(health|metrics)/.test(path)) continue;
        for (const [method, operation] of Object.entries(operations)) {
          const name = `${app} ${method.toUpperCase()} ${path}`;
          const successes = Object.entries(operation.responses ?? {}).filter(([status]) => Number(status) >= 200 && Number(status) < 300);
          // A client generated from the document needs to know what success looks like, not only the errors.
          if (successes.length === 0) undocumented.push(`${name}: no success response`);
          for (const [status, response] of successes) {
            const schema = Object.values(response.content ?? {})[0]?.schema;
            if (status !== '204' && !schema && !/no body/i.test(response.description ?? '')) undocumented.push(`${name} ${status}`);
          }
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});
