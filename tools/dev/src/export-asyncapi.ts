import { writeFile } from 'node:fs/promises';
import { asyncApiDocument } from '@availability/contracts';

/** Writes docs/asyncapi.json from the event definitions (`npm run docs:asyncapi`); libs/contracts tests keep it current. */
await writeFile('docs/asyncapi.json', `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
console.log('wrote docs/asyncapi.json');
