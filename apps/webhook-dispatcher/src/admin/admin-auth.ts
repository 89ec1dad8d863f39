import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(authorization: unknown): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/** Constant time: both sides are hashed first, so neither content nor length of the token leaks through timing. */
export function adminTokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

export const ADMIN_AUTH_HINT = 'Send the dispatcher admin token as "Authorization: Bearer <token>".';

/** Operator API: `Authorization: Bearer <DISPATCHER_ADMIN_TOKEN>`. */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(private readonly config: WebhookDispatcherConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!adminTokenMatches(bearerToken(request.headers.authorization), this.config.DISPATCHER_ADMIN_TOKEN)) {
      throw ProblemException.unauthorized(ADMIN_AUTH_HINT);
    }
    return true;
  }
}
