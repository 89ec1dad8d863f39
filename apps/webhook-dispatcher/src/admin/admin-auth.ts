import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { adminTokenMatches, bearerToken } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

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
