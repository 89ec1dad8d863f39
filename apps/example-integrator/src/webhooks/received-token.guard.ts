import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { adminTokenMatches, bearerToken, ProblemException } from '@availability/service-core';
import { ExampleIntegratorConfig } from '../config/example-integrator.config.js';

/** `/received` shows what the platform sent: with INTEGRATOR_RECEIVED_TOKEN set, only to its holder. */
@Injectable()
export class ReceivedTokenGuard implements CanActivate {
  constructor(private readonly config: ExampleIntegratorConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.INTEGRATOR_RECEIVED_TOKEN;
    if (expected === '') return true;
    const presented = bearerToken(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    if (!adminTokenMatches(presented, expected)) throw ProblemException.unauthorized('GET /received needs the INTEGRATOR_RECEIVED_TOKEN bearer token.');
    return true;
  }
}
