import { writeFile } from 'node:fs/promises';
import { asyncApiDocument, integratorOpenApiDocument } from '@availability/contracts';

/**
 * Writes the documents made from libs/contracts (`npm run docs:contracts`): the event stream's AsyncAPI
 * document and the integrator endpoints' OpenAPI document. libs/contracts tests keep both current.
 */
for (const [path, document] of [
  ['docs/asyncapi.json', asyncApiDocument()],
  ['docs/integrator-openapi.json', integratorOpenApiDocument()],
] as const) {
  await writeFile(path, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${path}`);
}
