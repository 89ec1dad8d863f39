import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException, rawBodyOf } from '@availability/service-core';
import { RemoteKeySet, verifyRequest, type VerifyResult, verifyStandardWebhook } from '@availability/webhook-signing';
import { ExampleIntegratorConfig, integratorSecrets } from '../config/example-integrator.config.js';

/**
 * Accepts a request only if the platform signed it (DESIGN 4, libs/webhook-signing README). By default
 * the `Authorization: hmac <hex>` over Timestamp, method, the path as on the request line and the raw
 * body, with a timestamp within 5 minutes. With INTEGRATOR_SIGNATURE_SCHEME=v1 or v1a, every call but
 * /test/auth (which the spec signs with `hmac`) must carry that Standard Webhooks signature instead,
 * which also signs the `webhook-id`: `v1` with the shared secret, `v1a` by a key of the platform's
 * published key set. Anything else is a 401 saying why.
 */
@Injectable()
export class SignatureGuard implements CanActivate {
  private readonly secrets: string[];
  private readonly platformKeys?: RemoteKeySet;

  constructor(private readonly config: ExampleIntegratorConfig) {
    this.secrets = integratorSecrets(config);
    // Its configuration requires INTEGRATOR_KEY_SET_URL with v1a.
    if (config.INTEGRATOR_SIGNATURE_SCHEME === 'v1a') this.platformKeys = new RemoteKeySet({ url: config.INTEGRATOR_KEY_SET_URL });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // `request.raw.url` is the path with query exactly as on the request line.
    const url = request.raw.url ?? request.url;
    const body = rawBodyOf(request);
    const toleranceSeconds = this.config.INTEGRATOR_TOLERANCE_SECONDS;
    const testAuth = url.split('?')[0].endsWith('/test/auth');
    let result: VerifyResult;
    if (this.platformKeys && !testAuth) {
      try {
        result = await this.platformKeys.verify(request, body, { toleranceSeconds });
      } catch {
        // The key set could not be fetched: our side, so the platform should retry rather than give up.
        throw new ProblemException(503, 'key-set-unavailable', 'The platform\'s signing keys could not be fetched; try again later.');
      }
    } else if (this.config.INTEGRATOR_SIGNATURE_SCHEME === 'v1' && !testAuth) {
      result = verifyStandardWebhook({ secret: this.secrets, headers: request.headers, body, toleranceSeconds });
    } else {
      result = verifyRequest({ secret: this.secrets, request: { method: request.method, url, headers: request.headers }, body, toleranceSeconds });
    }
    if (!result.ok) throw new ProblemException(401, 'invalid-signature', `The request signature was rejected: ${result.reason}.`);
    return true;
  }
}
