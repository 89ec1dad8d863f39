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
});
