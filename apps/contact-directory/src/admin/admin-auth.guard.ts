import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { adminTokenMatches, bearerToken } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';

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
