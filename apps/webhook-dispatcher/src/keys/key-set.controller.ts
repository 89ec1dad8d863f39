import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SigningKeyRing, WELL_KNOWN_KEY_SET_PATH } from '@availability/webhook-signing';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { SigningKeySetView } from './key-set.view.js';

/**
 * The platform's public signing keys (a JWKS document), for integrators who verify `v1a` signatures.
 * Public by design: no authentication, cacheable. It lists every configured key that is not past its
 * `notAfter`, so a key keeps verifying through a rotation's grace period.
 */
@ApiTags('signing keys')
@Controller()
export class KeySetController {
  constructor(
    private readonly keys: SigningKeyRing,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  @Get(WELL_KNOWN_KEY_SET_PATH.slice(1))
  @ApiOperation({ summary: 'The public keys that verify v1a webhook signatures (JWKS); the webhook-key-id header names the one used' })
  @ApiOkResponse({ description: 'The key set (JWKS), public and cacheable (Cache-Control max-age)', type: SigningKeySetView })
  keySet(@Res({ passthrough: true }) reply: FastifyReply): SigningKeySetView {
    // Verifiers also fetch again when they meet an unknown key id, so max-age only bounds how long a
    // key taken out of the set stays trusted by a cache.
    reply.header('cache-control', `public, max-age=${this.config.WEBHOOK_KEY_SET_MAX_AGE_SECONDS}`);
    reply.header('access-control-allow-origin', '*');
    return this.keys.keySet();
  }
}
