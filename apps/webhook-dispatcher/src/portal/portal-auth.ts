import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { adminTokenMatches, PortalUserGuard, presentedToken } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

export const PORTAL_AUTH_HINT = 'Send a portal user token (put_…) of your organisation as "Authorization: Bearer <token>".';

/**
 * The portal's webhook pages: a portal user of the organisation (PortalUserGuard, through
 * contact-directory, cached). The operator token is refused here without asking anyone, so it never
 * leaves this process and an operator's client cannot act as an organisation.
 */
@Injectable()
export class PortalWebhooksGuard implements CanActivate {
  constructor(
    private readonly portalUsers: PortalUserGuard,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const token = presentedToken(context.switchToHttp().getRequest<FastifyRequest>());
    if (token && adminTokenMatches(token, this.config.DISPATCHER_ADMIN_TOKEN)) {
      throw ProblemException.unauthorized(`The operator token is not accepted here. ${PORTAL_AUTH_HINT}`);
    }
    return this.portalUsers.canActivate(context);
  }
}
