import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { verifyRequest } from '@availability/webhook-signing';
import { ExampleIntegratorConfig, integratorSecrets } from '../config/example-integrator.config.js';
import { rawBodyOf } from './raw-body.js';

/**
 * Accepts a request only if the platform signed it (DESIGN 4, libs/webhook-signing README): the
 * `Authorization: hmac <hex>` over Timestamp, method, the path as on the request line and the raw
 * body, with a timestamp within 5 minutes. Anything else is a 401 saying why.
 */
@Injectable()
export class SignatureGuard implements CanActivate {
  private readonly secrets: string[];

  constructor(private readonly config: ExampleIntegratorConfig) {
    this.secrets = integratorSecrets(config);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const result = verifyRequest({
      secret: this.secrets,
      // `request.raw.url` is the path with query exactly as on the request line.
      request: { method: request.method, url: request.raw.url ?? request.url, headers: request.headers },
      body: rawBodyOf(request),
      toleranceSeconds: this.config.INTEGRATOR_TOLERANCE_SECONDS,
    });
    if (!result.ok) throw new ProblemException(401, 'invalid-signature', `The request signature was rejected: ${result.reason}.`);
    return true;
  }
}
