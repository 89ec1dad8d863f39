import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { EVENT_SCHEMAS } from '../events/event-schemas.js';
import type { EventSubject } from '../events/event-subjects.js';
import { breakingApiChanges, type OpenApiDocument } from './api-compatibility.js';
import { breakingChangesForReaders } from './schema-compatibility.js';

/**
 * The contracts as they are now against the contracts as released (libs/contracts/released, written by
 * `npm run contracts:release`): a service deployed on its own must not break a consumer or client
 * built against the release. A breaking change comes as a new version (a new event subject, a new
 * route) beside the old one; re-recording the release is the reviewed step that retires the old one.
 */
const RELEASED = resolve(process.cwd(), 'libs/contracts/released');
const read = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const HINT = 'breaks consumers or clients of the released contract: add a new version beside it, or record a release (npm run contracts:release) if retiring it is intended';

describe('released contracts', () => {
  it('every released event still exists and still reads as it did', () => {
    const released = read<{ schemas: Record<string, object> }>(`${RELEASED}/events.json`).schemas;
    const problems = Object.entries(released).flatMap(([subject, schema]) => {
      const current = EVENT_SCHEMAS[subject as EventSubject];
      if (!current) return [`${subject}: removed`];
      return breakingChangesForReaders(schema, JSON.parse(JSON.stringify(current))).map((problem) => `${subject} ${problem}`);
    });
    expect({ problems, hint: problems.length ? HINT : '' }).toEqual({ problems: [], hint: '' });
  });

  it.each(readdirSync(`${RELEASED}/openapi`))('every released operation of %s still works for its clients', (file) => {
    const problems = breakingApiChanges(read(`${RELEASED}/openapi/${file}`), read(resolve(process.cwd(), 'docs/openapi', file)));
    expect({ problems, hint: problems.length ? HINT : '' }).toEqual({ problems: [], hint: '' });
  });
});

describe('breakingApiChanges on a changed copy of offers-api’s document', () => {
  const released = () => read<OpenApiDocument & { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } }>(`${RELEASED}/openapi/offers-api.json`);

  it('finds nothing in the document unchanged', () => {
    expect(breakingApiChanges(released(), released())).toEqual([]);
  });

  it('catches a removed operation, a newly required body field and a body field of another type', () => {
    const current = released();
    delete current.paths['/offer/{id}/withdraw'];
    current.components.schemas.CreateOfferDto.properties.shiftCode = { type: 'string' };
    current.components.schemas.CreateOfferDto.required.push('shiftCode');
    current.components.schemas.CreateOfferDto.properties.workerIds = { type: 'string' };
    expect(breakingApiChanges(released(), current)).toEqual([
      'POST /offer: request body /shiftCode: now required',
      'POST /offer: request body /workerIds: must now be string, not array',
      'GET /offer/{id}/withdraw: removed',
    ]);
  });

  it('catches a response that lost a field or changed a field’s type', () => {
    const withResponse = (properties: Record<string, unknown>): OpenApiDocument => ({
      paths: { '/offer/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties, required: Object.keys(properties) } } } } } } } },
    });
    const before = withResponse({ id: { type: 'string' }, complete: { type: 'boolean' } });
    expect(breakingApiChanges(before, withResponse({ id: { type: 'string' } }))).toEqual(['GET /offer/{id}: response 200 /complete: removed']);
    expect(breakingApiChanges(before, withResponse({ id: { type: 'string' }, complete: { type: 'string' } }))).toEqual([
      'GET /offer/{id}: response 200 /complete: type changed from boolean to string',
    ]);
  });

  it('lets a response that had no schema gain one: a client had nothing of it to rely on', () => {
    const undocumented: OpenApiDocument = { paths: { '/offer/{id}': { get: { responses: { '200': {} } } } } };
    const documented: OpenApiDocument = {
      paths: { '/offer/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } } } } },
    };
    expect(breakingApiChanges(undocumented, documented)).toEqual([]);
    expect(breakingApiChanges(documented, undocumented)).toEqual(['GET /offer/{id}: response 200 no longer has a body schema']);
  });
});
