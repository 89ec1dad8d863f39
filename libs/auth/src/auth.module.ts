import { type DynamicModule, Global, Module } from '@nestjs/common';
import { OrganisationAuthGuard, WorkerAuthGuard } from './auth.guards.js';
import { PortalUserGuard } from './portal-user.guard.js';
import { CREDENTIAL_VERIFIER_OPTIONS, CredentialVerifier, type CredentialVerifierOptions } from './credential-verifier.js';

/** Credential checks for services whose callers hold directory-issued API keys, worker or portal user tokens. Requires NatsModule. */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: () => CredentialVerifierOptions): DynamicModule {
    return {
      module: AuthModule,
      providers: [{ provide: CREDENTIAL_VERIFIER_OPTIONS, useFactory: options }, CredentialVerifier, OrganisationAuthGuard, WorkerAuthGuard, PortalUserGuard],
      exports: [CredentialVerifier, OrganisationAuthGuard, WorkerAuthGuard, PortalUserGuard],
    };
  }
}
