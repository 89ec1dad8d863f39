import { describe, expect, it } from '@jest/globals';
import { DocumentedResponses, type SeenResponse } from './documented-responses.js';

const DOCUMENT = {
  paths: {
    '/offer': { post: { responses: { '201': { content: { 'text/plain': { schema: { type: 'string', format: 'uuid' } } } } } } },
    '/offer/{id}': {
      get: {
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Offer' } } } },
          '404': { content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
    },
    '/offer/latest': { get: { responses: { '204': { description: 'No body' } } } },
  },
  components: {
    schemas: {
      Offer: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'string', format: 'uuid' }, title: { type: 'string' }, details: { type: 'string', nullable: true } } },
      Problem: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } },
    },
  },
};
const ID = '0b0e6a3c-61f8-4b55-9c36-3d1f4b7e2a10';
const checker = new DocumentedResponses(new Map([['offers-api', DOCUMENT as never]]));

function seen(method: string, path: string, status: number, contentType: string, body: unknown): SeenResponse {
  return { app: 'offers-api', method, path, status, contentType, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

describe('DocumentedResponses', () => {
  it('accepts answers that match their documented schema, through $refs, nullable fields and a literal path before a template', () => {
    expect(
      checker.problems([
        seen('GET', `/offer/${ID}`, 200, 'application/json; charset=utf-8', { id: ID, title: 'Pickers', details: null }),
        seen('GET', '/offer/nope', 404, 'application/problem+json', { status: 404 }),
        seen('POST', '/offer', 201, 'text/plain', ID),
        seen('GET', '/offer/latest', 204, '', ''),
      ]),
    ).toEqual([]);
  });

  it('names each answer that the document does not describe, or describes otherwise', () => {
    expect(
      checker.problems([
        seen('GET', `/offer/${ID}`, 200, 'application/json', { id: ID }),
        seen('GET', `/offer/${ID}`, 200, 'application/json', { id: 'off_1', title: 'Pickers' }),
        seen('GET', `/offer/${ID}`, 500, 'application/problem+json', { status: 500 }),
        seen('GET', `/offer/${ID}`, 404, 'application/json', { status: 404 }),
        seen('POST', '/offer', 201, 'text/plain', 'not-an-id'),
        seen('DELETE', `/offer/${ID}`, 200, 'application/json', {}),
        seen('GET', '/offer/latest', 204, 'application/json', { surprise: true }),
      ]),
    ).toEqual([
      `offers-api GET /offer/${ID} → 200: (body) must have required property 'title' (schema offers-api.json#/components/schemas/Offer/required)`,
      `offers-api GET /offer/${ID} → 200: /id must match format "uuid" (schema offers-api.json#/components/schemas/Offer/properties/id/format)`,
      `offers-api GET /offer/${ID} → 500: status not documented for GET /offer/{id}`,
      `offers-api GET /offer/${ID} → 404: a application/json body, but the document gives application/problem+json`,
      'offers-api POST /offer → 201: (body) must match format "uuid" (schema #/format)',
      `offers-api DELETE /offer/${ID} → 200: operation not in the document`,
      'offers-api GET /offer/latest → 204: a application/json body, but the document gives no body',
    ]);
  });
});
