import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from './problem.js';

export const SUPPORTED_API_VERSIONS = ['1.0'] as const;

/** `api-version` in any letter case, with or without array brackets (`api-version[]`). */
const API_VERSION_KEY = /^api-version(\[.*\])?$/i;

/**
 * The `api-version` value of a query, or undefined when it is absent. The name is matched ignoring
 * case, as property names are; given twice, or as an array, it is a 400 rather than one value
 * silently winning.
 */
export function apiVersionOf(query: Record<string, unknown> | undefined): string | undefined {
  const keys = Object.keys(query ?? {}).filter((key) => API_VERSION_KEY.test(key));
  if (keys.length === 0) return undefined;
  const version = (query as Record<string, unknown>)[keys[0]];
  if (keys.length > 1 || keys[0].length !== 'api-version'.length || typeof version !== 'string') {
    throw ProblemException.field('api-version', 'must be given once, as a single value');
  }
  return version;
}

/** DESIGN 3: every call accepts `api-version`; absent means 1.0; anything else is a 400. */
@Injectable()
export class ApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
    const version = apiVersionOf(query);
    if (version === undefined) return true;
    if ((SUPPORTED_API_VERSIONS as readonly string[]).includes(version)) return true;
    throw ProblemException.validation(
      { 'api-version': [`must be one of: ${SUPPORTED_API_VERSIONS.join(', ')}`] },
      `api-version "${version.slice(0, 20)}" is not supported.`,
    );
  }
}
