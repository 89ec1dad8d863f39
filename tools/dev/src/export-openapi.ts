import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fetchOpenApiDocuments, httpServices, openApiDocumentPath } from '@availability/testing';

/**
 * Writes the OpenAPI document each HTTP service serves at /openapi.json to docs/openapi/<service>.json
 * (`npm run docs:openapi`). The services run as processes against a scratch database and event
 * namespace, which are removed afterwards; tools/e2e/test/openapi-docs.spec.ts checks the files stay current.
 */
const apps = await httpServices();
const documents = await fetchOpenApiDocuments(apps);
for (const [app, text] of documents) {
  const path = openApiDocumentPath(app);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  console.log(`wrote ${path.slice(process.cwd().length + 1)}`);
}
