import { type DynamicModule, Global, Module } from '@nestjs/common';
import { RATE_LIMIT_PRINCIPALS } from '@availability/service-core';
import { OrganisationAuthGuard, WorkerAuthGuard } from './auth.guards.js';
import { CredentialPrincipals } from './credential-principals.js';
import { PortalUserGuard } from './portal-user.guard.js';
import { CREDENTIAL_VERIFIER_OPTIONS, CredentialVerifier, type CredentialVerifierOptions } from './credential-verifier.js';

/**
 * Credential checks for services whose callers hold directory-issued API keys, worker or portal user
 * tokens, and whom the service's rate limit charges each request to (RATE_LIMIT_PRINCIPALS). Requires NatsModule.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: () => CredentialVerifierOptions): DynamicModule {
    return {
      module: AuthModule,
      providers: [
        { provide: CREDENTIAL_VERIFIER_OPTIONS, useFactory: options },
        CredentialVerifier,
        OrganisationAuthGuard,
        WorkerAuthGuard,
        PortalUserGuard,
        CredentialPrincipals,
        { provide: RATE_LIMIT_PRINCIPALS, useExisting: CredentialPrincipals },
      ],
      exports: [CredentialVerifier, OrganisationAuthGuard, WorkerAuthGuard, PortalUserGuard, RATE_LIMIT_PRINCIPALS],
    };
  }
}
