import { describe, expect, it } from '@jest/globals';
import { CLIENT_TYPES, CLIENT_TYPES_SCRIPT, readCommittedClientTypes, renderClientTypes } from './client-types.js';

/** The committed client types are the ones the committed OpenAPI documents make today. */
describe('generated client types', () => {
  it.each(CLIENT_TYPES.map((types) => [types.output, types] as const))('%s is current', async (output, types) => {
    const [committed, fresh] = await Promise.all([readCommittedClientTypes(types), renderClientTypes(types)]);
    if (committed !== fresh) {
      throw new Error(`${output} is ${committed === undefined ? 'missing' : `out of date with ${types.document}`}; run \`${CLIENT_TYPES_SCRIPT}\` and commit it`);
    }
    expect(committed).toBe(fresh);
  });
});
