import type { OpenAPIObject } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

type Operation = { responses?: Record<string, { description?: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }> };

/** RFC 9457 problem details as every error of the platform's APIs carries them (ProblemDetails in problem.ts). */
export const PROBLEM_DETAILS_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details: the body of every error response (application/problem+json). Types are listed in docs/errors.md.',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri', example: 'https://availability.example/problems/validation-failed' },
    title: { type: 'string', example: 'Bad Request' },
    status: { type: 'integer', minimum: 400, maximum: 599, example: 400 },
    detail: { type: 'string', example: 'The request body has invalid fields.' },
    errors: {
      type: 'object',
      description: 'Field errors by field path, e.g. events[0].end',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      example: { 'events[0].end': ['end must be an ISO 8601 timestamp'] },
    },
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Every documented error response gets the one ProblemDetails schema, and (where requests are
 * counted, `rateLimited`) every operation but probes and documents its 429 and its 503: a client can
 * generate one error type and handle every failure the same way.
 */
export function withProblemDetails(document: OpenAPIObject, rateLimited: (path: string) => boolean): OpenAPIObject {
  const components = (document.components ??= {});
  (components.schemas ??= {}).ProblemDetails = PROBLEM_DETAILS_SCHEMA;
  const problem = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/ProblemDetails' } } };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      const responses = (operation.responses ??= {});
      if (rateLimited(path) && !responses['429']) {
        responses['429'] = {
          description: 'More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds',
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the window ends' } },
        };
      }
      if (rateLimited(path) && !responses['503']) {
        responses['503'] = {
          description: 'The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds',
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before repeating' } },
        };
      }
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400 || status === 'default') response.content = problem;
      }
    }
  }
  return document;
}

/** A bearer scheme of the platform: its tokens are opaque strings with a kind prefix, not JWTs. */
export function opaqueBearer(description: string): { type: 'http'; scheme: 'bearer'; bearerFormat: string; description: string } {
  return { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description };
}
