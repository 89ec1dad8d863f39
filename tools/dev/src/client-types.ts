import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** Each typed client's types: the committed OpenAPI document they are made from, and where they are written. */
export const CLIENT_TYPES = [{ document: 'docs/openapi/offers-api.json', output: 'libs/sender-client/src/generated/offers-api.ts' }] as const;

export type ClientTypes = (typeof CLIENT_TYPES)[number];

export const CLIENT_TYPES_SCRIPT = 'npm run clients:generate';

/** The TypeScript types of one document, as the committed file holds them. */
export async function renderClientTypes({ document }: ClientTypes, root = process.cwd()): Promise<string> {
  const ast = await openapiTS(pathToFileURL(resolve(root, document)), { silent: true });
  return `// Generated from ${document} by \`${CLIENT_TYPES_SCRIPT}\`; do not edit.\n\n${astToString(ast)}`;
}

/** The committed types, or undefined when the file is missing. */
export function readCommittedClientTypes({ output }: ClientTypes, root = process.cwd()): Promise<string | undefined> {
  return readFile(resolve(root, output), 'utf8').catch(() => undefined);
}

export async function writeClientTypes(types: ClientTypes, root = process.cwd()): Promise<void> {
  const path = resolve(root, types.output);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, await renderClientTypes(types, root));
}
