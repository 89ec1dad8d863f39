import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@availability/auth';
import { EventSubject } from '@availability/contracts';
import { BusHandlersModule, NatsHealth, NatsModule, OutboxModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule, RetentionModule, retentionOptions } from '@availability/service-core';
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
import { InvitationsSentRepository } from './invitations/invitations-sent.repository.js';
import { DirectoryRequestsController } from './messaging/directory-requests.controller.js';
import { PortalUserGuard } from './portal/portal-auth.guard.js';
import { PortalRepository } from './portal/portal.repository.js';
import { SignInController } from './sign-in/sign-in.controller.js';
import { SignInMailer } from './sign-in/sign-in-mailer.js';
import { SignInRequestsController } from './sign-in/sign-in-requests.controller.js';
import { SignInRepository } from './sign-in/sign-in.repository.js';
import { SignInService } from './sign-in/sign-in.service.js';
import { SuggestionsController } from './suggestions/suggestions.controller.js';
import { SuggestionsService } from './suggestions/suggestions.service.js';
import { directoryRetention } from './retention/directory-retention.js';
import { SERVICE_MIGRATIONS } from './migrate.js';

export const SERVICE_NAME = 'contact-directory';

/**
 * Sign-in requests each instance works on at once. Each holds a database connection while
 * notification-service takes its e-mail (SignInMailer), so few: the API needs the pool too.
 */
const SIGN_IN_REQUESTS_AT_ONCE = 4;
const SIGN_IN_REQUESTS_READ_EVERY_MS = 1_000;

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
        // Its own consumer reads sign-in requests (and makes sure the stream exists, as its outbox needs).
        BusHandlersModule.forService(SERVICE_NAME, config, {
          concurrency: SIGN_IN_REQUESTS_AT_ONCE,
          // Read once a second, not as each comes: a request's work then runs at a moment of its own,
          // not right after its answer, where the next request's time would show it.
          readEveryMs: { [EventSubject.SignInRequested]: SIGN_IN_REQUESTS_READ_EVERY_MS },
          // A person waits for the e-mail: tried again soon, then every minute (about 45 minutes in all).
          backoffMs: [1_000, 2_000, 5_000, 10_000, 30_000, 60_000],
          // A handler may wait that long for notification-service; only after it is the event given to another instance.
          ackWaitMs: config.SIGN_IN_MAIL_TIMEOUT_MS + 30_000,
          parkedEventsSchema: DIRECTORY_SCHEMA,
        }),
        OutboxModule.forRoot(() => ({
          schema: DIRECTORY_SCHEMA,
          subjectPrefix: config.NATS_SUBJECT_PREFIX,
          enabled: config.OUTBOX_RELAY_ENABLED,
        })),
        // Portal and worker endpoints verify credentials the way every service does: over NATS, via
        // this service's own VerifyCredential responder (see PortalUserGuard for why).
        AuthModule.forRoot(() => ({ cacheTtlMs: config.CREDENTIAL_CACHE_TTL_MS, timeoutMs: config.DIRECTORY_TIMEOUT_MS, operatorTokens: [config.DIRECTORY_ADMIN_TOKEN] })),
        RetentionModule.forRoot(() => retentionOptions(config, directoryRetention(config))),
        HealthModule.forRoot([DatabaseHealth, NatsHealth]),
      ],
      controllers: [AdminController, CompanyProfileController, SuggestionsController, InvitationsController, ContactsController, DirectoryRequestsController, SignInController, SignInRequestsController],
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
        InvitationsSentRepository,
        ContactsService,
        SignInRepository,
        SignInService,
        SignInMailer,
      ],
      exports: [ContactDirectoryConfig],
    };
  }
}
