import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { EVENT_SCHEMAS } from '@availability/contracts';

/**
 * Records the contracts as released (`npm run contracts:release`): the event schemas and every
 * service's OpenAPI document, under libs/contracts/released. From then on the compatibility test
 * fails on any change that would break a consumer or a client written against them. Run it when a
 * release goes out (a deliberate, reviewed step: its diff shows what a breaking change gives up).
 */
const target = 'libs/contracts/released';
await mkdir(`${target}/openapi`, { recursive: true });
await writeFile(`${target}/events.json`, `${JSON.stringify({ released: new Date().toISOString().slice(0, 10), schemas: EVENT_SCHEMAS }, null, 2)}\n`);
for (const file of await readdir('docs/openapi')) if (file.endsWith('.json')) await copyFile(`docs/openapi/${file}`, `${target}/openapi/${file}`);
console.log(`wrote ${target}/events.json and ${target}/openapi/*.json`);
