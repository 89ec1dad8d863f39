import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Value } from '@sinclair/typebox/value';
import { breakingChangesForReaders } from '../compatibility/schema-compatibility.js';
import { ContactSuggestionsRequest, ContactSuggestionsResponse, integratorOpenApiDocument, WorkerOfferResponse } from './integrator-contract.js';

describe('docs/integrator-openapi.json', () => {
  it('is the document the contract makes (run `npm run docs:contracts` and commit it)', () => {
    const committed = JSON.parse(readFileSync(resolve(process.cwd(), 'docs/integrator-openapi.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(integratorOpenApiDocument())));
  });

  it('has every endpoint of spec 4.2 and the Worker Offer Response, each but /test signed', () => {
    const document = integratorOpenApiDocument() as { paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(Object.keys(document.paths).sort()).toEqual(['/contact-suggestions', '/contact/new/{workerId}', '/offer/response', '/test', '/test/auth']);
    expect(document.paths['/test'].get.security).toEqual([]);
    for (const [path, operations] of Object.entries(document.paths)) if (path !== '/test') for (const operation of Object.values(operations)) expect(operation.security.length).toBeGreaterThan(0);
  });
});

describe('integrator contract schemas', () => {
  it('take the bodies of spec 2.6, 2.7 and 2.8 and refuse what they rule out', () => {
    expect(Value.Check(ContactSuggestionsRequest, { userEmailAddresses: ['hirer@example.com'] })).toBe(true);
    expect(Value.Check(ContactSuggestionsRequest, { filter: 'fork', userEmailAddresses: ['hirer@example.com'] })).toBe(true);
    expect(Value.Check(ContactSuggestionsRequest, { filter: 'fork' })).toBe(false);
    const rating = { rating: 5, ratingProvider: 'Warehouse North', lastWorked: '2026-10-01' };
    expect(Value.Check(ContactSuggestionsResponse, [{ name: 'Ada', emailAddress: 'ada@example.com', ratings: [rating] }])).toBe(true);
    expect(Value.Check(ContactSuggestionsResponse, [{ name: 'Ada', emailAddress: 'ada@example.com', ratings: [{ ...rating, rating: 6 }] }])).toBe(false);
    expect(Value.Check(ContactSuggestionsResponse, [{ name: 'Ada', emailAddress: 'ada@example.com', ratings: [{ ...rating, rating: 4.5 }] }])).toBe(false);
    expect(Value.Check(ContactSuggestionsResponse, [{ name: 'Ada', emailAddress: 'ada@example.com' }])).toBe(false);
    expect(
      Value.Check(WorkerOfferResponse, {
        eventId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f',
        offerId: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b',
        workerId: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20',
        response: 'applied',
        respondedAt: '2026-11-22T10:55:02.000Z',
      }),
    ).toBe(true);
  });

  it('numbers answers with an optional sequence of at least 1, which a reader of the body without it may ignore', () => {
    const body = {
      eventId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f',
      offerId: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b',
      workerId: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20',
      response: 'rejected',
      respondedAt: '2026-11-22T10:55:02.000Z',
    };
    expect(Value.Check(WorkerOfferResponse, { ...body, sequence: 2 })).toBe(true);
    expect(Value.Check(WorkerOfferResponse, body)).toBe(true);
    expect(Value.Check(WorkerOfferResponse, { ...body, sequence: 0 })).toBe(false);
    expect(Value.Check(WorkerOfferResponse, { ...body, sequence: 1.5 })).toBe(false);
    const current = JSON.parse(JSON.stringify(WorkerOfferResponse)) as Parameters<typeof breakingChangesForReaders>[1] & { properties: Record<string, object> };
    const { sequence: _sequence, ...released } = current.properties;
    expect(breakingChangesForReaders({ ...current, properties: released }, current)).toEqual([]);
  });

  it('marks a test event with an optional test: true, which a reader of the released body may ignore', () => {
    const body = {
      eventId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f',
      offerId: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b',
      workerId: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20',
      response: 'applied',
      respondedAt: '2026-11-22T10:55:02.000Z',
    };
    expect(Value.Check(WorkerOfferResponse, { ...body, test: true })).toBe(true);
    expect(Value.Check(WorkerOfferResponse, { ...body, test: false })).toBe(false);
    const current = JSON.parse(JSON.stringify(WorkerOfferResponse)) as Parameters<typeof breakingChangesForReaders>[1] & { properties: Record<string, object> };
    const { test: _test, ...released } = current.properties;
    expect(breakingChangesForReaders({ ...current, properties: released }, current)).toEqual([]);
    const document = integratorOpenApiDocument() as { paths: Record<string, Record<string, { parameters: Array<{ $ref?: string }> }>> };
    for (const [path, method] of [['/offer/response', 'post'], ['/contact/new/{workerId}', 'get']]) {
      expect(document.paths[path][method].parameters).toContainEqual({ $ref: '#/components/parameters/webhook-test' });
      expect(document.paths[path][method].parameters).toContainEqual({ $ref: '#/components/parameters/webhook-redelivery' });
    }
  });
});
