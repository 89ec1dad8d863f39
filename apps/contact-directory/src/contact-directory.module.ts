import { type DynamicModule, Module } from '@nestjs/common';
import { NatsHealth, NatsModule } from '@availability/messaging';
import { createLoggerModule, DatabaseHealth, DatabaseModule, HealthModule } from '@availability/service-core';
import { AdminAuthGuard } from './admin/admin-auth.guard.js';
import { AdminController } from './admin/admin.controller.js';
import { DirectoryAdminService } from './admin/directory-admin.service.js';
import { ContactDirectoryConfig } from './config/contact-directory.config.js';
import { RevocationPublisher } from './credentials/revocation.publisher.js';
import { DirectoryQueries } from './directory/directory-queries.service.js';
import { DIRECTORY_SCHEMA, DirectoryRepository } from './directory/directory.repository.js';
import { DirectoryResponder } from './messaging/directory-responder.js';
import { CreateDirectory1763900000000 } from './migrations/1763900000000-create-directory.js';

export const SERVICE_NAME = 'contact-directory';

@Module({})
export class ContactDirectoryModule {
  static forRoot(config: ContactDirectoryConfig): DynamicModule {
    return {
      module: ContactDirectoryModule,
      global: true,
      imports: [
        createLoggerModule(SERVICE_NAME, config),
        DatabaseModule.forRoot(() => ({
          url: config.DATABASE_URL,
          schema: DIRECTORY_SCHEMA,
          migrations: [CreateDirectory1763900000000],
          poolSize: config.DATABASE_POOL_SIZE,
          applicationName: SERVICE_NAME,
        })),
        NatsModule.forRoot(() => ({ servers: config.NATS_URL, name: SERVICE_NAME, subjectPrefix: config.NATS_SUBJECT_PREFIX })),
        HealthModule.forRoot([DatabaseHealth, NatsHealth]),
      ],
      controllers: [AdminController],
      providers: [
        { provide: ContactDirectoryConfig, useValue: config },
        DirectoryRepository,
        DirectoryQueries,
        DirectoryResponder,
        DirectoryAdminService,
        RevocationPublisher,
        AdminAuthGuard,
      ],
      exports: [ContactDirectoryConfig],
    };
  }
}
