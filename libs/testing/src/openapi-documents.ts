import { readdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { startTestPlatform } from './test-platform.js';

/** Where the committed OpenAPI documents live, one `<service>.json` per HTTP service. */
export const OPENAPI_DOCS_DIR = 'docs/openapi';

/**
 * Settings under which the documents are taken: the API as deployed, so development-only routes
 * (notification-service's `/dev/*`) are left out.
 */
const DOCUMENT_ENV: Record<string, string> = { DEV_ENDPOINTS: 'false' };

/** Conventional order of an OpenAPI document's top-level keys; every other object's keys are sorted. */
const TOP_LEVEL_ORDER = ['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components'];

/** Every service under `apps/` is an HTTP service serving `/openapi.json`. */
export async function httpServices(root = process.cwd()): Promise<string[]> {
  const entries = await readdir(resolve(root, 'apps'), { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
}

export function openApiDocumentPath(app: string, root = process.cwd()): string {
  return resolve(root, OPENAPI_DOCS_DIR, `${app}.json`);
}

/**
 * Starts the given services as processes (built `dist/`, a scratch database and event namespace),
 * fetches each one's `/openapi.json` and returns it rendered by {@link renderOpenApiDocument}, then
 * stops everything again.
 */
export async function fetchOpenApiDocuments(apps: string[]): Promise<Map<string, string>> {
  // contact-directory first: the others ask it over NATS from start-up.
  const ordered = [...apps].sort((a, b) => Number(b === 'contact-directory') - Number(a === 'contact-directory'));
  const platform = await startTestPlatform(ordered, DOCUMENT_ENV);
  try {
    const documents = new Map<string, string>();
    for (const app of apps) {
      const response = await fetch(`${platform.url(app)}/openapi.json`);
      if (!response.ok) throw new Error(`${app}: GET /openapi.json answered HTTP ${response.status}`);
      documents.set(app, renderOpenApiDocument(await response.json()));
    }
    return documents;
  } finally {
    await platform.stop();
  }
}

/** The committed text of a service's document, or undefined when there is none. */
export async function readCommittedOpenApiDocument(app: string, root = process.cwd()): Promise<string | undefined> {
  return readFile(openApiDocumentPath(app, root), 'utf8').catch(() => undefined);
}

/** Pretty-printed JSON with a stable key order (arrays keep theirs), ending in a newline. */
export function renderOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(sortKeys(document, TOP_LEVEL_ORDER), null, 2)}\n`;
}

function sortKeys(value: unknown, order: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value === null || typeof value !== 'object') return value;
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]));
}
