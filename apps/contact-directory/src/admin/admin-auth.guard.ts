import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(authorization: unknown): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/**
 * Compares in constant time: both sides are hashed first, so neither the content nor the length of
 * the expected token leaks through timing.
 */
export function adminTokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Admin API: platform operators only, with `Authorization: Bearer <DIRECTORY_ADMIN_TOKEN>`. */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(private readonly config: ContactDirectoryConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!adminTokenMatches(bearerToken(request.headers.authorization), this.config.DIRECTORY_ADMIN_TOKEN)) {
      throw ProblemException.unauthorized('Send the admin token as "Authorization: Bearer <token>".');
    }
    return true;
  }
}
