import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from './problem.js';

export const SUPPORTED_API_VERSIONS = ['1.0'] as const;

/** DESIGN 3: every call accepts `api-version`; absent means 1.0; anything else is a 400. */
@Injectable()
export class ApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
    const version = query?.['api-version'];
    if (version === undefined) return true;
    if (typeof version === 'string' && (SUPPORTED_API_VERSIONS as readonly string[]).includes(version)) return true;
    throw ProblemException.validation(
      { 'api-version': [`must be one of: ${SUPPORTED_API_VERSIONS.join(', ')}`] },
      `api-version ${typeof version === 'string' ? `"${version.slice(0, 20)}" ` : ''}is not supported.`,
    );
  }
}
