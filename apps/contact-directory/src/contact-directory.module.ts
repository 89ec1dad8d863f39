import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@availability/auth';
import { BusHandlersModule, EventStreamModule, NatsHealth, NatsModule, OutboxModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule } from '@availability/service-core';
import { AdminAuthGuard } from './admin/admin-auth.guard.js';
import { AdminController } from './admin/admin.controller.js';
import { DirectoryAdminService } from './admin/directory-admin.service.js';
import { CompanyProfileController } from './company-profile/company-profile.controller.js';
import { CompanyProfileService } from './company-profile/company-profile.service.js';
import { outboundProviders } from './company-profile/outbound.providers.js';
import { WebhookTargetChanges } from './company-profile/webhook-target-changes.js';
import { ContactDirectoryConfig } from './config/contact-directory.config.js';
import { ContactsController } from './contacts/contacts.controller.js';
import { ContactsService } from './contacts/contacts.service.js';
import { RevocationPublisher } from './credentials/revocation.publisher.js';
import { TokenRevocation } from './credentials/token-revocation.js';
import { DirectoryQueries } from './directory/directory-queries.service.js';
import { DIRECTORY_SCHEMA, DirectoryRepository } from './directory/directory.repository.js';
import { InvitationsController } from './invitations/invitations.controller.js';
import { InvitationsService } from './invitations/invitations.service.js';
import { DirectoryRequestsController } from './messaging/directory-requests.controller.js';
import { PortalUserGuard } from './portal/portal-auth.guard.js';
import { PortalRepository } from './portal/portal.repository.js';
import { SignInController } from './sign-in/sign-in.controller.js';
import { SignInRepository } from './sign-in/sign-in.repository.js';
import { SignInService } from './sign-in/sign-in.service.js';
import { SuggestionsController } from './suggestions/suggestions.controller.js';
import { SuggestionsService } from './suggestions/suggestions.service.js';
import { SERVICE_MIGRATIONS } from './migrate.js';

export const SERVICE_NAME = 'contact-directory';

@Module({})
export class ContactDirectoryModule {
  static forRoot(config: ContactDirectoryConfig): DynamicModule {
    return {
      module: ContactDirectoryModule,
      global: true,
      imports: [
        createLoggerModule(SERVICE_NAME, config),
        DatabaseModule.forService(config, SERVICE_MIGRATIONS),
        NatsModule.forService(SERVICE_NAME, config),
        EventStreamModule.forService(config),
        BusHandlersModule.forService(SERVICE_NAME, config),
        OutboxModule.forRoot(() => ({
          schema: DIRECTORY_SCHEMA,
          subjectPrefix: config.NATS_SUBJECT_PREFIX,
          enabled: config.OUTBOX_RELAY_ENABLED,
        })),
        // Portal and worker endpoints verify credentials the way every service does: over NATS, via
        // this service's own VerifyCredential responder (see PortalUserGuard for why).
        AuthModule.forRoot(() => ({ cacheTtlMs: config.CREDENTIAL_CACHE_TTL_MS, timeoutMs: config.DIRECTORY_TIMEOUT_MS, operatorTokens: [config.DIRECTORY_ADMIN_TOKEN] })),
        HealthModule.forRoot([DatabaseHealth, NatsHealth]),
      ],
      controllers: [AdminController, CompanyProfileController, SuggestionsController, InvitationsController, ContactsController, DirectoryRequestsController, SignInController],
      providers: [
        { provide: ContactDirectoryConfig, useValue: config },
        DirectoryRepository,
        PortalRepository,
        DirectoryQueries,
        DirectoryAdminService,
        RevocationPublisher,
        TokenRevocation,
        AdminAuthGuard,
        PortalUserGuard,
        ...outboundProviders,
        WebhookTargetChanges,
        CompanyProfileService,
        SuggestionsService,
        InvitationsService,
        ContactsService,
        SignInRepository,
        SignInService,
      ],
      exports: [ContactDirectoryConfig],
    };
  }
}
