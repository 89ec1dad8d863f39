import { CLIENT_TYPES, writeClientTypes } from './client-types.js';

/**
 * Writes the typed clients' TypeScript types from the committed OpenAPI documents (`npm run
 * clients:generate`, also run by `npm run docs:openapi` after it rewrites the documents);
 * client-types.spec.ts checks the committed files stay current.
 */
for (const types of CLIENT_TYPES) {
  await writeClientTypes(types);
  console.log(`wrote ${types.output}`);
}
